import ArgumentParser
import Foundation
import ShelfStore
import ShelfTerminal
import ShelfTransfer

struct ItemsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "items", abstract: "Manage items.",
        subcommands: [Add.self, List.self, Show.self, Done.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an item and print its ID.")

        @OptionGroup var database: DatabaseOptions

        @Option(help: ArgumentHelp("The owner's email.", valueName: "email"))
        var user: String

        @Option(help: "The title; not empty.")
        var title: String

        @Option(help: "Free-form notes.")
        var notes: String?

        @Option(help: "0 (lowest) to 3 (highest).")
        var priority = PriorityArgument(value: 0)

        @Option(help: "open or done.")
        var status: Item.Status = .open

        func run() async throws {
            let store = try await database.openStore(creating: true)
            let owner = try await store.users.requireUser(email: user)
            let id = try await store.items.insert(
                NewItem(userID: owner.id, title: title, notes: notes, status: status, priority: priority.value))
            do {
                try printLine(String(id.rawValue))
            } catch let error as ReaderGone {
                throw error
            } catch {
                // The row is in: say so, or a retry would add it twice.
                throw CommandError("added item \(id.rawValue), but could not print its ID: \(error)")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List items by ID.",
            discussion: """
                A table on a terminal; tab-separated ID, status, priority, owner, title and update time \
                otherwise, with tabs, line breaks and control characters escaped.
                """)

        @OptionGroup var database: DatabaseOptions

        @OptionGroup var filter: ItemFilterOptions

        @Flag(help: "Print a JSON array, as `shelf export items --format json` does.")
        var json = false

        /// Streams the rows from one snapshot, a buffer at a time: memory stays flat whatever
        /// the number of items.
        func run() async throws {
            let store = try await database.openStore()
            let query = try await filter.itemQuery(in: store, sortDirection: .ascending)
            if json {
                try await exporting {
                    try await Exporter(store: store).exportItems(matching: query, format: .json, to: .standardOutput)
                }
                return
            }
            let table = TextTable([
                .init(header: "ID", width: 7, cuts: false), .init(header: "STATUS", width: 6),
                .init(header: "P", width: 1, cuts: false), .init(header: "OWNER", width: 24),
                .init(header: "TITLE", width: nil), .init(header: "UPDATED (UTC)", width: 16, cuts: false),
            ])
            try await runBlocking { cancellation in
                var output = OutputBuffer()
                if let header = table.header { try output.append(header) }
                try store.forEachItem(matching: query) { item in
                    try cancellation.check()
                    let updated =
                        table.terminal
                        ? TimeFormat.minute(millisecondsSince1970: item.updatedAt, zone: false)
                        : TimeFormat.iso8601(millisecondsSince1970: item.updatedAt)
                    try output.append(
                        table.line([
                            String(item.id), item.status, String(item.priority), item.ownerEmail, item.title, updated,
                        ]))
                }
                try output.flush()
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one item.")

        @OptionGroup var database: DatabaseOptions

        @Argument(help: "The item's ID.")
        var id: ItemID

        @Flag(help: "Print one JSON object, as `shelf watch` writes items, with the owner's email as user.")
        var json = false

        func run() async throws {
            let store = try await database.openStore()
            let item = try await store.items.requireItem(id: id.value)
            let owner = try await store.users.user(id: item.userID)?.email ?? "?"
            if json {
                try StandardOutput.write(
                    JSONEncoder.escapingInvisibles(try JSONEncoder.lines.encode(ShownItem(item: item, user: owner)))
                        + [0x0A])
                return
            }
            let lines = [
                ("ID", String(item.id.rawValue)), ("Title", item.title), ("Owner", owner),
                ("Status", item.status.rawValue), ("Priority", String(item.priority)),
                ("Created", TimeFormat.iso8601(item.createdAt)),
                ("Updated", TimeFormat.iso8601(item.updatedAt)),
                ("Version", String(item.version)),
            ]
            var text = lines.map { "\($0.0 + ":")\(String(repeating: " ", count: 10 - $0.0.count))\(Sanitized($0.1))" }
            if let notes = item.notes {
                text.append("Notes:")
                text += notes.split(separator: "\n", omittingEmptySubsequences: false).map {
                    "  \(Sanitized(String($0)))"
                }
            }
            try printLine(text.joined(separator: "\n"))
        }
    }

    struct Done: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark an item done.")

        @OptionGroup var database: DatabaseOptions

        @Argument(help: "The item's ID.")
        var id: ItemID

        func run() async throws {
            let store = try await database.openStore()
            // Another writer may change the item between the read and the update: retry then.
            for attempt in 1...3 {
                var item = try await store.items.requireItem(id: id.value)
                guard item.status != .done else { return }
                item.status = .done
                do {
                    _ = try await store.items.update(item)
                    return
                } catch let error as StoreError where error.code == .conflict && attempt < 3 {
                    continue
                }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an item.")

        @OptionGroup var database: DatabaseOptions

        @Argument(help: "The item's ID.")
        var id: ItemID

        func run() async throws {
            let store = try await database.openStore()
            do {
                try await store.items.delete(id: id.value)
            } catch let error as StoreError where error.code == .notFound {
                throw CommandError("no item has the ID \(id.value.rawValue); list them with `shelf items list`")
            }
        }
    }
}

/// A priority on the command line: 0 to 3. Anything else is a usage error, as a word is.
struct PriorityArgument: ExpressibleByArgument {
    let value: Int

    init(value: Int) {
        self.value = value
    }

    init?(argument: String) {
        guard let number = Int(argument), Item.priorities.contains(number) else { return nil }
        value = number
    }

    var defaultValueDescription: String { String(value) }
}

/// An item ID on the command line: `42` or `#42`.
struct ItemID: ExpressibleByArgument {
    let value: Item.ID

    init?(argument: String) {
        let digits = argument.hasPrefix("#") ? argument.dropFirst() : Substring(argument)
        guard let raw = Int64(digits), raw > 0 else { return nil }
        value = Item.ID(raw)
    }
}

/// Text from data made safe for a terminal: control characters become visible.
struct Sanitized: CustomStringConvertible {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    var description: String { TextTable.isTerminal ? Sanitizer.sanitize(text) : TextTable.escapeForTSV(text) }
}

/// `shelf items show --json`: the item as `shelf watch` writes it, plus its owner's email.
struct ShownItem: Encodable {
    let item: Item
    let user: String

    private enum Key: CodingKey { case user }

    func encode(to encoder: any Encoder) throws {
        try item.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(user, forKey: .user)
    }
}

extension UserRepository {
    /// The user with `email`, or an error that says how to add one.
    func requireUser(email: String) async throws -> User {
        guard let user = try await user(email: email) else {
            throw CommandError(
                "no user has the email '\(email)'; add one with `shelf users add --name NAME --email \(email)`")
        }
        return user
    }
}

extension ItemRepository {
    /// The item with `id`, or an error that says how to find one.
    func requireItem(id: Item.ID) async throws -> Item {
        guard let item = try await item(id: id) else {
            throw CommandError("no item has the ID \(id.rawValue); list them with `shelf items list`")
        }
        return item
    }
}
