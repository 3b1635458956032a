import ArgumentParser
import Foundation
import ShelfStore

/// Where the database lives: `--db`, else `SHELF_DB`, else the XDG data folder.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("db"),
        help: ArgumentHelp(
            "The database file.",
            discussion:
                "Default: $SHELF_DB, else $XDG_DATA_HOME/shelf/shelf.sqlite, else ~/.local/share/shelf/shelf.sqlite.",
            valueName: "path"))
    var path: String?

    @Flag(help: "Use a temporary demo database with sample users and items (deleted on exit).")
    var demo = false

    /// Opens the store the options name: the demo store, or the file, migrated.
    func openStore() async throws -> Store {
        if demo {
            let store = try Store.temporary()
            try await DemoData.fill(store)
            return store
        }
        return try Store(path: try resolvedPath())
    }

    func resolvedPath(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        if let path, !path.isEmpty { return path }
        if let path = environment["SHELF_DB"], !path.isEmpty { return path }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/shelf/shelf.sqlite"
        }
        guard let home = environment["HOME"], !home.isEmpty else {
            throw ValidationError("cannot find a place for the database: pass --db PATH, or set SHELF_DB or HOME")
        }
        return home + "/.local/share/shelf/shelf.sqlite"
    }
}
