"""One data root: the results store and the autosaves live in the same user data folder."""

from app.autosave import default_directory
from engine.io.datadir import user_data_root
from engine.store.connection import default_db_path


def test_store_and_autosaves_share_the_user_data_folder(monkeypatch):
    monkeypatch.delenv("QRTUNE_DB", raising=False)
    root = user_data_root()
    assert root.name == "qrtune" and root.parent.name != "qrtune"  # no vendor folder of the same name above
    assert default_db_path().parent == root
    assert default_directory().parent == root
