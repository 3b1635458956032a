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
        var counted: (query: String, total: Int)?
        var pruneQueued = false
        var looked: (rows: [Item.ID], query: ItemQuery, total: Int?)?
        let list = viewModel.list
        viewModel.list.state.bind(during: lifetime) { [weak actions] state in
            guard let actions, let content = state.value else { return }
            if actions.marks.value.isDescribed {
                // Marks of a query: which rows carry one, and how many there are, come from
                // the store (recounted when the list's count moves: items changed).
                let rows = content.rows.map(\.id)
                let query = list.query
                if looked?.rows != rows || looked?.query != query {
                    actions.enqueue { await actions.lookUpMarks(rows: rows, listQuery: query) }
                }
                if looked == nil || looked?.total != content.totalCount || looked?.query != query {
                    actions.scheduleRecount()
                }
                looked = (rows, query, content.totalCount)
                shown = Set(rows)
                return
            }
            looked = nil
            let now = Set(content.rows.map(\.id))
            let gone = shown.subtracting(now).filter { actions.marks.value.contains($0) }
            shown = now
            // Fewer items match the same query: items were deleted, maybe marked ones far
            // from the rows held (another process removed a user with their items).
            var fewer = false
            if let total = content.totalCount {
                if let counted, counted.query == content.queryDescription, total < counted.total { fewer = true }
                counted = (content.queryDescription, total)
            }
            if fewer, !actions.marks.value.isEmpty {
                // One check waiting at a time: deletions in a burst are all seen by it.
                guard !pruneQueued else { return }
                pruneQueued = true
                actions.enqueue {
                    pruneQueued = false
                    await actions.pruneMarks()
                }
            } else if !gone.isEmpty {
                actions.enqueue { await actions.forgetDeleted(among: Array(gone)) }
            }
        }
    }

    /// Checks the marks against the store, then runs `open` with the number of marked items
    /// that still exist (nil when the check failed; the status bar says why): the count a
    /// prompt shows is true. Keys typed meanwhile are held and given to what `open` shows.
    private func withCheckedMarks(_ open: @escaping @MainActor (Int?) -> Void) {
        let actions = viewModel.actions
        typedAhead = []
        actions.enqueue { [weak self] in
            let count = await actions.checkMarksForPrompt()
            guard let self else { return }
            open(count)
            replayTypedAhead()
        }
    }

    /// Opens a prompt for `count` items: the selected one at once when nothing is marked,
    /// otherwise once the marks are checked against the store, for those that still exist.
    private func presentCounted(marked: Int, _ present: @escaping @MainActor (Int) -> Void) {
        guard marked > 0 else { return present(1) }
        withCheckedMarks { count in
            if let count, count > 0 { present(count) }
        }
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
            // The rows held and their count are the query's: marked at once, counted again after.
            let content = viewModel.list.state.value.value
            let rows = content?.rows.map(\.id) ?? []
            let total = content?.totalCount
            actions.enqueue { await actions.markAll(matching: query, shown: rows, count: total) }
        case .toggleDone:
            actions.clearMessage()
            actions.enqueue { await actions.toggleDone(selected: selected) }
        case .delete:
            guard marked > 0 else {
                if row != nil { confirmDelete(count: 0, row: row) }
                return true
            }
            withCheckedMarks { [weak self] count in
                guard let count, count > 0 else { return }
                self?.confirmDelete(count: count, row: row)
            }
        case .setOwner:
            guard marked > 0 || selected != nil else { return true }
            presentCounted(marked: marked) { [weak self] count in
                guard let self else { return }
                presentPrompt(
                    // The prompt closes once the owner is found: the change runs behind it, with
                    // its progress in the status bar, and Esc cancels it.
                    viewModel.makeOwnerPrompt(count: count) { email in
                        await actions.enqueued { await actions.startOwnerChange(email: email, selected: selected) }
                            ?? nil
                    })
            }
        case .setPriority:
            guard marked > 0 || selected != nil else { return true }
            presentCounted(marked: marked) { [weak self] count in
                guard let self else { return }
                presentPrompt(
                    viewModel.makePriorityPrompt(count: count) { priority in
                        actions.startPriorityChange(priority, selected: selected)
                    })
            }
        case .undo:
            actions.enqueue { await actions.undo() }
        case .redo:
            actions.enqueue { await actions.redo() }
        case .copyText, .copyJSON:
            let json = action == .copyJSON
            let clipboard = self.clipboard
            actions.enqueue {
                // Streamed: kept for OSC 52 while it fits, else written to the file as it is read.
                let writer = ClipboardWriter(clipboard: clipboard, json: json)
                guard
                    let copy = await actions.copy(
                        selected: selected, json: json, write: { try writer.append($0) },
                        finish: { try writer.finish() })
                else {
                    writer.abandon()
                    return
                }
                do {
                    switch copy.outcome {
                    case .text(let text):
                        switch try clipboard.copy(text, json: json) {
                        case .terminal: actions.copied(copy.count, json: json, toFile: nil)
                        case .file(let path): actions.copied(copy.count, json: json, toFile: path)
                        }
                    case .file(let path): actions.copied(copy.count, json: json, toFile: path)
                    }
                } catch {
                    actions.copyFailed(error)
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
            confirmation = viewModel.makeBulkDeleteConfirmation(count: count, keys: Theme.keyNames)
            ids = actions.targets(selected: nil)
        } else if let row {
            confirmation = viewModel.makeDeleteConfirmation(id: row.id, title: row.title, keys: Theme.keyNames)
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
