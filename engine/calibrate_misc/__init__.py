"""Calibration scripts for the Db2 Mirror, MQ mover and DB2 V8 engines.

``python -m engine.calibrate_misc`` fits every coefficient file
(``assets/coefficients/mirror.json``, ``mq.json``, ``db2v8.json``) from the
published measurements (``assets/validation/calibration.json``) and the seed
documents' tables; each sub-module can also be run alone.
"""
