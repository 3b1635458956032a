import ArgumentParser
import ShelfStore

struct ItemsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "items", abstract: "Manage items.", subcommands: [Add.self])

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
        var priority = 0

        @Option(help: "open or done.")
        var status: Item.Status = .open

        func run() async throws {
            let store = try await database.openStore()
            let owner = try await store.users.requireUser(email: user)
            let id = try await store.items.insert(
                NewItem(userID: owner.id, title: title, notes: notes, status: status, priority: priority))
            print(id.rawValue)
        }
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
