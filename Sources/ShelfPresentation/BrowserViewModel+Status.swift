internal import ShelfReactive

extension BrowserViewModel {
    /// The status bar's right end: the keys to start with, as bound by default.
    public nonisolated static let statusHints = statusHints(help: "?", new: "n", quit: "q")

    /// The status bar's right end for the keys in force: "? help  n new  q quit ", leaving
    /// out what has no key.
    public nonisolated static func statusHints(help: String?, new: String?, quit: String?) -> String {
        hints([(help, "help"), (new, "new"), (quit, "quit")])
    }

    /// The status bar's right end while the search field has the cursor, where the list's
    /// letters type text: the field's own keys as bound, "Enter keep  Esc clear  ↓ list "
    /// (keep the search and go back to the list, clear it, go down into the rows).
    public nonisolated static func searchHints(keep: String?, clear: String?) -> String {
        hints([(keep, "keep"), (clear, "clear"), ("↓", "list")])
    }

    /// The status bar's right end while an item is open on the whole screen: the key back to
    /// the list first, as bound, "Esc back  ? help ".
    public nonisolated static func detailHints(back: String?, help: String?) -> String {
        hints([(back, "back"), (help, "help")])
    }

    /// "KEY word  KEY word ", leaving out the words without a key.
    private nonisolated static func hints(_ pairs: [(key: String?, word: String)]) -> String {
        pairs.compactMap { pair in pair.key.map { "\($0) \(pair.word)" } }.joined(separator: "  ") + " "
    }

    /// The status bar's text now, from the list's state, the open saved view, the marks and
    /// the last action's message (see `statusText(list:openViewName:openViewNote:markCount:actionMessage:)`).
    public var statusText: String {
        Self.statusText(
            list: list.state.value, openViewName: openViewName, openViewNote: openViewNote,
            markCount: actions.marks.value.count, actionMessage: actions.message.value)
    }

    /// The status bar's text: "12/340 items · “moth” · newest first" (the selected position,
    /// then the count — "… items" until it is known — and the query in words, " …" while a
    /// newer read runs); the list's message instead when it has one; "view “NAME” · " in
    /// front while a saved view shows (or the view's note instead); "N marked · " in front
    /// while items are marked; and the last action's message first.
    public nonisolated static func statusText(
        list state: ViewState<ItemListContent>, openViewName: String?, openViewNote: String?, markCount: Int,
        actionMessage: String?
    ) -> String {
        var left: String
        switch state {
        case .idle, .loading:
            left = "Loading…"
        case .loaded(let content):
            // Rows show before their count: "… items" until it arrives.
            let count = content.totalCount.map(Formatting.items) ?? "… items"
            left = "\(count) · \(content.queryDescription)"
            if let position = content.selectedPosition, let total = content.totalCount {
                left = "\(Formatting.count(position + 1))/\(Formatting.count(total)) · " + left
            }
            if content.isRefreshing { left += " …" }
            if let message = content.message { left = message }
            if let name = openViewName { left = openViewNote ?? "view “\(name)” · " + left }
        case .empty(let message):
            left = message
        case .failed(let failure):
            left = failure.message
        }
        if markCount > 0 { left = "\(Formatting.count(markCount)) marked · " + left }
        return actionMessage.map { "\($0) · " + left } ?? left
    }
}
