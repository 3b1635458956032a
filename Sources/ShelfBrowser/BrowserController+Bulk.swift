internal import Foundation
internal import ShelfPresentation
internal import ShelfReactive
internal import ShelfStore
public import ShelfTerminal

/// Marks, bulk actions, undo and copy: the keys `m` `M` Space `d` `o` `p` `u` Ctrl-R `y` `Y`.
extension BrowserController {
    /// The clipboard of the terminal the browser runs in, decided by the environment.
    public static func systemClipboard() -> Clipboard {
        Clipboard(environment: ProcessInfo.processInfo.environment)
    }

    /// Follows the marks and the action messages: the list's mark column and the status bar
    /// (`rerender` draws the bar again); marks of items that left the list are checked, and
    /// dropped when the item was deleted.
    func bindMarks(list: ItemListController, rerender: @escaping @MainActor () -> Void) {
        let actions = viewModel.actions
        list.isMarked = { [weak actions] id in actions?.marks.value.contains(id) ?? false }
        actions.marks.bind(during: lifetime) { [weak list] marks in
            list?.marksDidChange(anyMarked: !marks.isEmpty)
            rerender()
        }
        actions.message.bind(during: lifetime) { _ in rerender() }
        var shown: Set<Item.ID> = []
        viewModel.list.state.bind(during: lifetime) { [weak actions] state in
            guard let actions, let rows = state.value?.rows else { return }
            let now = Set(rows.map(\.id))
            let gone = shown.subtracting(now).filter { actions.marks.value.contains($0) }
            shown = now
            if !gone.isEmpty { Task { await actions.forgetDeleted(among: Array(gone)) } }
        }
    }

    /// The status bar's left text with the count of marks in front, or the last action's
    /// message instead.
    func statusWithMarks(_ left: String) -> String {
        let actions = viewModel.actions
        let marks = actions.marks.value.count
        let status = marks == 0 ? left : "\(Formatting.count(marks)) marked · " + left
        return actions.message.value.map { "\($0) · " + status } ?? status
    }

    /// Handles the keys of marks, bulk actions, undo and copy; false for other actions.
    func handleBulk(_ action: BrowserAction, selected row: ItemRowViewModel?) -> Bool {
        let actions = viewModel.actions
        let selected = row?.id
        let marked = actions.marks.value.count
        switch action {
        case .toggleMark:
            guard let selected else { return true }
            actions.clearMessage()
            actions.toggleMark(id: selected)
            viewModel.list.moveSelection(by: 1)
        case .markAll:
            let query = viewModel.list.query
            actions.enqueue { await actions.markAll(matching: query) }
        case .toggleDone:
            actions.clearMessage()
            actions.enqueue { await actions.toggleDone(selected: selected) }
        case .delete:
            guard marked > 0 || row != nil else { return true }
            confirmDelete(count: marked, row: row)
        case .setOwner:
            guard marked > 0 || selected != nil else { return true }
            let prompt = viewModel.makeOwnerPrompt(count: max(marked, 1)) { email in
                await actions.enqueued { await actions.setOwner(email: email, selected: selected) }
            }
            presentPrompt(prompt)
        case .setPriority:
            guard marked > 0 || selected != nil else { return true }
            let prompt = viewModel.makePriorityPrompt(count: max(marked, 1)) { priority in
                await actions.enqueued { await actions.setPriority(priority, selected: selected) }
            }
            presentPrompt(prompt)
        case .undo:
            actions.enqueue { await actions.undo() }
        case .redo:
            actions.enqueue { await actions.redo() }
        case .copyText, .copyJSON:
            let json = action == .copyJSON
            let clipboard = self.clipboard
            actions.enqueue {
                guard let copy = await actions.copyText(selected: selected, json: json) else { return }
                let what = "\(ItemActions.describe(copy.count))\(json ? " as JSON" : "")"
                do {
                    switch try clipboard.copy(copy.text) {
                    case .terminal: actions.show("copied \(what) to the clipboard")
                    case .file(let path): actions.show("copied \(what) to \(path)")
                    }
                } catch {
                    actions.show("Could not copy: \(error)")
                }
            }
        default:
            return false
        }
        return true
    }

    /// Asks before deleting the marked items (or the selected one); deletes on yes.
    private func confirmDelete(count: Int, row: ItemRowViewModel?) {
        let actions = viewModel.actions
        let confirmation: ConfirmViewModel
        let ids: [Item.ID]
        if count > 0 {
            confirmation = viewModel.makeBulkDeleteConfirmation(count: count)
            ids = actions.targets(selected: nil)
        } else if let row {
            confirmation = viewModel.makeDeleteConfirmation(id: row.id, title: row.title)
            ids = [row.id]
        } else {
            return
        }
        present(ConfirmController(viewModel: confirmation))
        modalObservation = confirmation.decision.bind(during: lifetime) { [weak self] decision in
            guard let decision, let self else { return }
            dismissModal()
            if decision { actions.enqueue { await actions.delete(ids: ids) } }
        }
    }

    private func presentPrompt(_ prompt: PromptViewModel) {
        present(PromptController(viewModel: prompt))
        modalObservation = prompt.decision.bind(during: lifetime) { [weak self] decision in
            guard decision != nil, let self else { return }
            dismissModal()
        }
    }
}
