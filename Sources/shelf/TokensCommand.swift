import ArgumentParser
import Foundation
import ShelfStore

#if Server
    import ShelfServer
#endif

/// `shelf tokens`: the API tokens `shelf serve` asks for (built with the `Server` trait).
struct TokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens", abstract: "Manage the API tokens of `shelf serve`.",
        discussion: """
            Once a token exists, every /api request needs Authorization: Bearer TOKEN. A token acts for \
            its user: it reads everything, and writes only that user's items and user row.
            """,
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a token for a user and print it; only its hash is stored, so it is shown this once.")

        @OptionGroup var database: DatabaseOptions

        @Option(help: ArgumentHelp("The email of the user the token acts for.", valueName: "email"))
        var user: String

        @Flag(help: "The token may only read.")
        var readOnly = false

        @Option(help: ArgumentHelp("The token's name, for list and revoke (default: EMAIL#N).", valueName: "name"))
        var name: String?

        func run() async throws {
            #if Server
                let store = try await database.openStore()
                let token = try await APITokens.create(in: store, email: user, name: name, readOnly: readOnly)
                try printLine(token)
            #else
                throw CommandError(ServeCommand.notBuilt("tokens create"))
            #endif
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the tokens: name, user, read-only or read-write, and when each was made.")

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            #if Server
                let store = try await database.openStore()
                for token in try await store.tokens.tokens() {
                    try printLine(
                        [
                            Sanitized(token.name).description, Sanitized(token.email).description,
                            token.readOnly ? "read-only" : "read-write", TimeFormat.iso8601(token.createdAt),
                        ].joined(separator: "\t"))
                }
            #else
                throw CommandError(ServeCommand.notBuilt("tokens list"))
            #endif
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a token by name; it is refused at once.")

        @OptionGroup var database: DatabaseOptions

        @Argument(help: ArgumentHelp("The token's name, as `shelf tokens list` shows it.", valueName: "name"))
        var name: String

        func run() async throws {
            #if Server
                let store = try await database.openStore()
                guard try await store.tokens.revokeToken(named: name) else {
                    throw CommandError("no token is named '\(Sanitized(name))'; `shelf tokens list` shows them")
                }
            #else
                throw CommandError(ServeCommand.notBuilt("tokens revoke"))
            #endif
        }
    }
}
