import ArgumentParser
import Foundation
import ShelfReactive
import ShelfStore
import ShelfTransfer

struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "Manage users.", subcommands: [Add.self, List.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a user and print its ID.")

        @OptionGroup var database: DatabaseOptions

        @Option(help: "The user's name.")
        var name: String

        @Option(help: "The user's email; unique, letter case ignored.")
        var email: String

        func run() async throws {
            let store = try await database.openStore(creating: true)
            let id = try await store.users.insert(NewUser(name: name, email: email))
            do {
                try printLine(String(id.rawValue))
            } catch let error as ReaderGone {
                throw error
            } catch {
                // The row is in: say so, or a retry would add it twice.
                throw CommandError("added user \(id.rawValue), but could not print its ID: \(error)")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List users by name.",
            discussion: "A table on a terminal; tab-separated ID, name, email and creation time otherwise.")

        @OptionGroup var database: DatabaseOptions

        @Flag(help: "Print a JSON array, as `shelf export users --format json` does.")
        var json = false

        func run() async throws {
            let store = try await database.openStore()
            if json {
                try await exporting { try await Exporter(store: store).exportUsers(format: .json, to: .standardOutput) }
                return
            }
            let table = TextTable([
                .init(header: "ID", width: 7, cuts: false), .init(header: "NAME", width: nil),
                .init(header: "EMAIL", width: 32), .init(header: "CREATED (UTC)", width: 16, cuts: false),
            ])
            try await BlockingWork.run { cancellation in
                var output = OutputBuffer()
                if let header = table.header { try output.append(header) }
                try store.forEachUser(orderedByName: true) { user in
                    try cancellation.check()
                    let created =
                        table.terminal
                        ? TimeFormat.minute(millisecondsSince1970: user.createdAt, zone: false)
                        : TimeFormat.iso8601(millisecondsSince1970: user.createdAt)
                    try output.append(table.line([String(user.id), user.name, user.email, created]))
                }
                try output.flush()
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a user and all their items.")

        @OptionGroup var database: DatabaseOptions

        @Argument(help: ArgumentHelp("The user's email.", valueName: "email"))
        var email: String

        func run() async throws {
            let store = try await database.openStore()
            let user = try await store.users.requireUser(email: email)
            // A view of this user's items outlives the user (its owner is cleared): it then shows
            // everyone's items. Say so, naming the views, rather than let them widen unseen.
            let views = try await WidenedViews.owned(in: store).filter { $0.owner == user.email }
            // Counted by the delete, in its transaction: items added meanwhile are counted too.
            let items = try await store.users.delete(id: user.id)
            if TextTable.isTerminal {
                try printLine("Removed \(Sanitized(user.email)) and their \(items) item\(items == 1 ? "" : "s").")
            }
            if let note = try await WidenedViews.note(before: views, store: store) {
                printError(SuggestedCommand.naming(databaseOf: CommandLine.arguments, in: note))
            }
        }
    }
}
