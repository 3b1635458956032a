import ArgumentParser
import Foundation
import ShelfStore

/// `--query`, `--status` and `--user`: which items a command reads.
struct ItemFilterOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Which items: words to find in titles and notes (each a prefix), \"exact phrases\", -excluded "
                + "words, @owner or owner:NAME (start of a name or email; several: any of them), "
                + "status:open|done or is:open|done, prio:2 or prio:>=2, created:<7d, updated:>2026-01-01. "
                + "Every other term must hold.",
            discussion: "A query that starts with - is given as --query=-word.",
            valueName: "query"))
    var query = ""

    /// The refusal of a query with a part that cannot be understood, quoting it (its start,
    /// when it is long) and naming the column; nil when it has none.
    static func problem(in query: String) -> String? {
        let problems = ItemQueryText(query).problems
        guard !problems.isEmpty else { return nil }
        let shown = query.count > 80 ? String(query.prefix(60)) + "…" : query
        let quoted = "'" + shown.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        let described = problems.map { problem in
            problem.unknownFilter.map { key in
                let start = query.index(query.startIndex, offsetBy: max(0, min(problem.column - 1, query.count)))
                let value = query[start...].split(separator: ":", maxSplits: 1).dropFirst().first
                    .map { $0.prefix { !$0.isWhitespace }.lowercased() }
                return "column \(problem.column): " + unknownFilter(key, value: value)
            } ?? problem.description
        }
        return "--query \(quoted) refused: " + described.joined(separator: "; ")
    }

    /// What a `key:` that names no filter is, in a refusal: not "searched as words" (the
    /// browser's note, hostile round 12), since the command searches nothing. A sort is said
    /// to be one, with the order each command keeps and where items come in the order asked
    /// for (owner order only when `value`, the text after the colon, asks for it).
    static func unknownFilter(_ key: String, value: String? = nil) -> String {
        if ["sort", "order", "orderby", "sortby", "by"].contains(key.lowercased()) {
            let kept =
                "\(key): is not a filter, and --query chooses which items, not their order (export and items "
                + "list give them by ID, watch newest first, whatever the query)."
            guard value == "owner" else {
                return kept
                    + " Items in another order: the browser's saved views (`shelf views save NAME --query '' "
                    + "--sort FIELD`, FIELD one of created, updated, priority, title, owner; then "
                    + "`shelf browse --view NAME`)"
            }
            return kept + " Items in owner order: the browser (`shelf views save by-owner "
                + "--query '' --sort owner`, then `shelf browse --view by-owner`), or an export ordered by owner "
                + "email (`shelf export items --format json | jq 'sort_by(.user)'`)"
        }
        return "unknown filter \(key): (the filters are \(QueryProblem.filterKeys)); to search for its words, "
            + "put the term in quotes"
    }

    @Option(help: "Only open or done items.")
    var status: Item.Status?

    @Option(help: ArgumentHelp("Only this user's items.", valueName: "email"))
    var user: String?

    /// Refuses a query with a part that cannot be understood, quoting it and naming the
    /// column: `--query 'prio:9' refused: column 1: prio: wants 0…3 or a comparison like >=2`.
    func validate() throws {
        if let problem = Self.problem(in: query) { throw ValidationError(problem) }
    }

    /// True when any filter is given.
    var isFiltering: Bool { !query.isEmpty || status != nil || user != nil }

    /// The query these options describe, with the user looked up by email.
    /// - Throws: `CommandError` when no user has that email.
    func itemQuery(
        in store: Store, sortField: ItemQuery.SortField = .created, sortDirection: ItemQuery.SortDirection = .descending
    )
        async throws -> ItemQuery
    {
        var query = ItemQuery(status: status, text: query, sortField: sortField, sortDirection: sortDirection)
        if let user { query.owner = try await store.users.requireUser(email: user).id }
        return query
    }
}
