import ArgumentParser
import Foundation
import ShelfStore
import ShelfTerminal
import ShelfTransfer

/// `shelf views`: saved views, the named searches the browser opens with `v` and
/// `shelf browse --view NAME`.
struct ViewsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "views", abstract: "Manage saved views (named searches the browser opens).",
        discussion: """
            A saved view is a search text, a sort and optionally an owner, kept in the database so that \
            every shelf sees it. Open one with `shelf browse --view NAME`, or with v in the browser.
            """,
        subcommands: [List.self, Save.self, Delete.self, Rename.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List saved views by name.",
            discussion: "A table on a terminal; tab-separated name, sort, direction, owner and query otherwise.")

        @OptionGroup var database: DatabaseOptions

        @Flag(help: "Print a JSON array of {name, query, sort, direction, owner (when set), updated}.")
        var json = false

        func run() async throws {
            let store = try await database.openStore()
            let views = try await store.views.views()
            var owners: [User.ID: String] = [:]
            for owner in Set(views.compactMap(\.owner)) {
                owners[owner] = try await store.users.user(id: owner)?.email ?? "user \(owner.rawValue)"
            }
            if json {
                let listed = views.map { ListedView($0, owner: $0.owner.flatMap { owners[$0] }) }
                try StandardOutput.write(
                    JSONEncoder.escapingInvisibles(try JSONEncoder.lines.encode(listed)) + [0x0A])
                return
            }
            let table = TextTable([
                .init(header: "NAME", width: 20), .init(header: "SORT", width: 8, cuts: false),
                .init(header: "DIRECTION", width: 10, cuts: false), .init(header: "OWNER", width: 16),
                .init(header: "QUERY", width: nil),
            ])
            if views.isEmpty {
                if table.terminal {
                    try printLine("No saved views. Save one with: shelf views save NAME --query TEXT")
                }
                return
            }
            var output = OutputBuffer()
            if let header = table.header { try output.append(header) }
            for view in views {
                try output.append(
                    table.line([
                        view.name, view.sortFieldName, view.sortDirection.rawValue,
                        view.owner.flatMap { owners[$0] } ?? "", view.queryText,
                    ]))
            }
            try output.flush()
        }
    }

    struct Save: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save a view: a search text and a sort under a name.",
            discussion: "Saving under the name of an existing view (letter case ignored) replaces that view.")

        @OptionGroup var database: DatabaseOptions

        @Argument(help: ArgumentHelp("The view's name (at most 100 characters as shown).", valueName: "name"))
        var name: String

        @Option(help: "The search text, as typed in the browser's search field (the language of --query).")
        var query: String

        @Option(help: "What the list is ordered by: created, updated, priority, title or owner.")
        var sort: ItemQuery.SortField = .created

        /// A view the store would refuse (its name, or a query that would filter differently
        /// from what was typed) is refused before anything is opened, by the check the store
        /// and the browser make (`NewSavedView.checked()`), with its message.
        func validate() throws {
            do {
                _ = try NewSavedView(name: name, queryText: query, sortField: sort).checked()
            } catch {
                throw ValidationError(error.message)
            }
        }

        @Flag(help: "The sort's direction (default: descending, ascending for title).")
        var direction: DirectionFlag?

        @Option(help: ArgumentHelp("Only this user's items.", valueName: "email"))
        var user: String?

        func run() async throws {
            let store = try await database.openStore(creating: true)
            var owner: User.ID?
            if let user { owner = try await store.users.requireUser(email: user).id }
            let existing = try await store.views.view(named: name)
            let view = try await store.views.save(
                NewSavedView(
                    name: name, queryText: query, sortField: sort,
                    sortDirection: direction?.direction ?? (sort == .title ? .ascending : .descending), owner: owner))
            if TextTable.isTerminal {
                try printLine("\(existing == nil ? "Saved" : "Replaced") view \(Sanitized(view.name)).")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a saved view.")

        @OptionGroup var database: DatabaseOptions

        @Argument(help: ArgumentHelp("The view's name (letter case ignored).", valueName: "name"))
        var name: String

        func run() async throws {
            let store = try await database.openStore()
            try await store.views.delete(named: name)
            if TextTable.isTerminal { try printLine("Deleted view \(Sanitized(name)).") }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a saved view.")

        @OptionGroup var database: DatabaseOptions

        @Argument(help: ArgumentHelp("The view's name now (letter case ignored).", valueName: "old"))
        var old: String

        @Argument(help: ArgumentHelp("Its new name.", valueName: "new"))
        var new: String

        func run() async throws {
            let store = try await database.openStore()
            let view = try await store.views.rename(old, to: new)
            if TextTable.isTerminal { try printLine("Renamed view \(Sanitized(old)) to \(Sanitized(view.name)).") }
        }
    }
}

/// `--ascending` or `--descending`.
enum DirectionFlag: String, EnumerableFlag {
    case ascending, descending

    var direction: ItemQuery.SortDirection { self == .ascending ? .ascending : .descending }
}

extension SavedViewRepository {
    /// The view named `name`, or a `CommandError` naming the views there are (or saying there
    /// are none, and how to save one).
    func requireView(named name: String) async throws -> SavedView {
        if let view = try await view(named: name) { return view }
        let names = try await views().map { "“\(Sanitizer.sanitize($0.name))”" }
        let known =
            names.isEmpty
            ? "there are no saved views; save one with `shelf views save NAME --query TEXT`, or with V in the browser"
            : "the saved views are \(names.joined(separator: ", "))"
        throw CommandError("no saved view is named “\(Sanitizer.sanitize(name))”; \(known)")
    }
}

/// One view in `shelf views list --json`.
struct ListedView: Encodable {
    let name: String
    let query: String
    let sort: String
    let direction: String
    let owner: String?
    let updated: String

    init(_ view: SavedView, owner: String?) {
        name = view.name
        query = view.queryText
        sort = view.sortFieldName
        direction = view.sortDirection.rawValue
        self.owner = owner
        updated = TimeFormat.iso8601(view.updatedAt)
    }
}
