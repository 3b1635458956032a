import ArgumentParser
import Foundation
import ShelfStore
import ShelfTerminal
import ShelfTransfer

extension ItemsCommand {
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
}
