internal import ShelfReactive
internal import ShelfStore

extension ItemListViewModel {
    /// What in the search text could not be understood, for the line under the search field:
    /// "⚠ unknown field “colour:” (and 1 more); the rest still filters"; nil when the whole
    /// text is understood.
    public var queryProblem: String? { parsedQuery.problem }

    /// The words the query searches for, to highlight in the titles
    /// (`TextHighlighter.ranges(of:in:)`).
    public var highlightTerms: [String] { parsedQuery.highlightTerms }

    /// What to do about what the list shows instead of rows: clear the filters or add items
    /// when it is empty, retry when reading failed; nil otherwise.
    public var hint: String? {
        Self.hint(for: state.value, hasFilters: hasFilters, demoCommand: demoCommand, keys: keys)
    }

    /// The command that fills this database with sample items (`shelf demo --db …`), for the
    /// empty list's hint; nil for a store in memory.
    public var demoCommand: String? { StoreHints.demoCommand(location: location) }

    /// The hint for `state`: see `hint`.
    public nonisolated static func hint(
        for state: ViewState<ItemListContent>, hasFilters: Bool, demoCommand: String?, keys: KeyNames = .defaults
    ) -> String? {
        switch state {
        case .empty:
            hasFilters
                ? "Press \(keys("list.clearSearch", "Esc")) to clear the search and filters."
                : "Press \(keys("list.new", "n")) to add an item, or fill a demo: \(demoCommand ?? "shelf demo") --items 1000"
        // The file deleted or replaced: its message says to quit and start again, the one
        // thing that helps; r would read the old file (hostile round 11).
        case .failed(let failure) where ItemListViewModel.isFileReplaced(failure): nil
        case .failed: "Press \(keys("list.retry", "r")) to try again."
        case .idle, .loading, .loaded: nil
        }
    }

    /// The lines under the search field for the problems of a query text, one per problem
    /// (at most `shown`, the last of them then saying how many more), the last ending in
    /// "the rest still filters"; nil when there are none.
    public nonisolated static func problemLine(_ problems: [String], shown: Int = 3) -> String? {
        guard !problems.isEmpty else { return nil }
        var lines = problems.prefix(problems.count > shown ? shown - 1 : shown).map { "⚠ \($0)" }
        if problems.count > lines.count { lines.append("⚠ … and \(problems.count - lines.count) more") }
        lines[lines.count - 1] += "; the rest still filters"
        return lines.joined(separator: "\n")
    }
}

extension ItemListContent {
    /// "↑ 3 new · g" while items arrived above the first row shown (g goes to the top); nil
    /// when none did.
    public var newAboveBadge: String? {
        newAboveCount > 0 ? "↑ \(Formatting.count(newAboveCount)) new · g" : nil
    }
}

/// The query text as parsed once, for the words shown about it.
struct ParsedQueryText {
    let text: String
    let problem: String?
    let highlightTerms: [String]

    init(_ text: String) {
        self.text = text
        let parsed = ItemQueryText(text)
        problem = ItemListViewModel.problemLine(parsed.problems.map { "\($0)" })
        highlightTerms = parsed.highlightTerms
    }
}
