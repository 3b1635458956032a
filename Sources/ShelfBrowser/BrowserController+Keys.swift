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
        let modes = keyModes(of: responder)
        // The way back from an item opened on the whole screen goes back whatever the list would
        // make of its Esc: with a search in force, "clear the search" (q and Enter cleared it and
        // left the item open).
        if modes.first == .detail, let action = configuration.keys.action(for: event, in: .detail),
            action.name == "back"
        {
            closeFullScreenDetail()
            return nil
        }
        return configuration.keys.translate(event, modes: modes)
    }

    /// The modes whose keys apply when `responder` is offered a key first.
    func keyModes(of responder: Controller) -> [KeyMode] {
        let modes = (responder as? any KeyModeReporting)?.keyModes ?? []
        if responder === listController, split.mode == .secondOnly, modes == [.list] { return [.detail, .list] }
        return modes
    }

    /// The status bar's right end: the keys that work where the keys go now, as bound (the
    /// search field's while it has the cursor, the way back while an item is open on the whole
    /// screen, the list's otherwise), and nothing while a dialog shows its own.
    var statusHints: String {
        func first(_ mode: KeyMode, _ name: String) -> String? {
            guard let action = KeyAction.all.first(where: { $0.mode == mode && $0.name == name }) else { return nil }
            return configuration.keys.keys(for: action).first?.description
        }
        if hasModal { return "" }
        if listController.isSearching {
            return BrowserViewModel.searchHints(keep: first(.search, "done"), clear: first(.search, "clear"))
        }
        if split.mode == .secondOnly {
            return BrowserViewModel.detailHints(back: first(.detail, "back"), help: first(.list, "help"))
        }
        return BrowserViewModel.statusHints(
            help: first(.list, "help"), new: first(.list, "new"), quit: first(.list, "quit"))
    }

    /// Puts the keys that work now at the status bar's right end (after the focus moved).
    func showStatusHints() {
        statusBar.right = statusHints
    }
}
