"""The window fits the screen's available room, frame included (the status bar, progress and Cancel on screen)."""


def test_a_window_bigger_than_the_screen_is_shrunk_and_moved_inside_it(window, qtbot):
    room = window.screen().availableGeometry()
    window.show()
    qtbot.waitExposed(window)
    window.resize(room.width() + 400, room.height() + 300)
    window.move(room.left() + 200, room.top() + 150)
    window.fit_to_screen()
    frame = window.frameGeometry()
    assert room.contains(frame), (room, frame)
    assert window.height() >= room.height() - (frame.height() - window.geometry().height()) - 1
