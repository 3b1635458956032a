import ArgumentParser
import Foundation
import ShelfStore
import ShelfTerminal
import ShelfTransfer

extension ItemsCommand {
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
            let email = try await store.users.user(id: item.userID)?.email
            if json {
                try StandardOutput.write(
                    JSONEncoder.escapingInvisibles(try JSONEncoder.lines.encode(ShownItem(item: item, user: email)))
                        + [0x0A])
                return
            }
            // A user deleted by another program with foreign keys off: said, not shown as "?".
            let owner =
                email
                ?? "user \(item.userID.rawValue), which no longer exists (another program deleted it with foreign "
                + "keys off)"

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
}
