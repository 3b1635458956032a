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

    @Flag(
        help: ArgumentHelp(
            "Use the demo database (demo.sqlite in the data folder), created with sample users and items on first use."
        ))
    var demo = false

    /// Opens the store the options name: the demo store (filled on first use, with a
    /// progress bar on a terminal), or the file, migrated.
    func openStore() async throws -> Store {
        guard demo else { return try OpenDatabases.open(try resolvedPath()) }
        let path = try demoPath()
        let store = try OpenDatabases.open(path)
        if try await store.users.users().isEmpty {
            let progress = ProgressLine(total: DemoData.defaultItems, label: "Creating the demo database")
            try await DemoData.fill(store, users: DemoData.defaultUsers, items: DemoData.defaultItems) {
                progress.update($0)
            }
            progress.finish()
        }
        return store
    }

    func resolvedPath(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        if let path, !path.isEmpty { return path }
        if let path = environment["SHELF_DB"], !path.isEmpty { return path }
        return try Self.dataFolder(environment: environment) + "/shelf.sqlite"
    }

    /// The demo database: demo.sqlite in the data folder.
    func demoPath(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        try Self.dataFolder(environment: environment) + "/demo.sqlite"
    }

    /// $XDG_DATA_HOME/shelf, else ~/.local/share/shelf.
    static func dataFolder(environment: [String: String]) throws -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/shelf"
        }
        guard let home = environment["HOME"], !home.isEmpty else {
            throw ValidationError("cannot find a place for the database: pass --db PATH, or set SHELF_DB or HOME")
        }
        return home + "/.local/share/shelf"
    }
}
