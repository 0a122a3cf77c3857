"""``python -m engine.calibrate_misc``: rebuild mirror.json, mq.json and db2v8.json."""

from engine.calibrate_misc import db2v8, mirror, mq

if __name__ == "__main__":
    mq.main([])
    db2v8.main([])
    mirror.main([])
