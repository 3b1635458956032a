internal import ShelfPresentation
internal import ShelfReactive
internal import ShelfTerminal

extension BrowserController {
    /// The key the controllers see for `event` offered first to `responder`: the
    /// configuration's keys become the keys the controllers know (`KeyMap.translate(_:modes:)`),
    /// in the modes of the controller that will see it.
    func translateKey(_ event: KeyEvent, for responder: Controller) -> KeyEvent? {
        if configurationNotice != nil {
            configurationNotice = nil  // said once; the first key clears it
            render(viewModel.list.state.value)
        }
        statusBar.maximumLines = 1  // a long message was read: one line again, cut
        // Esc while a bulk change, undo or redo runs: it stops, and nothing is changed.
        if event == KeyEvent(.escape), viewModel.actions.isBulkWriting {
            viewModel.actions.cancelBulkWrite()
            return nil
        }
        // Typed while an editor or prompt opens: translated when it is replayed to them.
        if typedAhead != nil { return event }
        return configuration.keys.translate(event, modes: keyModes(of: responder))
    }

    /// The modes whose keys apply when `responder` is offered a key first.
    func keyModes(of responder: Controller) -> [KeyMode] {
        let modes = (responder as? any KeyModeReporting)?.keyModes ?? []
        if responder === listController, split.mode == .secondOnly, modes == [.list] { return [.detail, .list] }
        return modes
    }

    /// The status bar's right end, with the keys in force.
    var statusHints: String {
        func first(_ name: String) -> String? {
            guard let action = KeyAction.all.first(where: { $0.mode == .list && $0.name == name }) else { return nil }
            return configuration.keys.keys(for: action).first?.description
        }
        return BrowserViewModel.statusHints(help: first("help"), new: first("new"), quit: first("quit"))
    }
}
