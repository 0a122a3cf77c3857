"""Cyclic garbage is collected in the GUI thread only once the window exists."""

import gc


def test_window_turns_automatic_collection_off_and_collects_on_a_timer(window):
    import app.gui_gc as gui_gc

    assert not gc.isenabled()  # a worker thread can no longer start a collection that destroys Qt objects
    assert gui_gc._collector is not None and gui_gc._collector.timer.isActive()
