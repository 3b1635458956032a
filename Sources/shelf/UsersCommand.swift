import ArgumentParser
import ShelfStore

struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "Manage users.", subcommands: [Add.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a user and print its ID.")

        @OptionGroup var database: DatabaseOptions

        @Option(help: "The user's name.")
        var name: String

        @Option(help: "The user's email; unique, letter case ignored.")
        var email: String

        func run() async throws {
            let store = try await database.openStore()
            let id = try await store.users.insert(NewUser(name: name, email: email))
            print(id.rawValue)
        }
    }
}
