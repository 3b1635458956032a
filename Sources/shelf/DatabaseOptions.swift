import ArgumentParser
import Foundation
import ShelfStore

/// Where the database lives: `--db`, else `SHELF_DB`, else the XDG data folder.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("db"),
        help: ArgumentHelp(
            "The database: a SQLite file (a path, or sqlite:PATH), or a PostgreSQL database (postgres://USER:PASSWORD@HOST:PORT/DATABASE).",
            discussion:
                "Default: $SHELF_DB, else $XDG_DATA_HOME/shelf/shelf.sqlite, else ~/.local/share/shelf/shelf.sqlite.",
            valueName: "location"))
    var path: String?

    @Flag(
        help: ArgumentHelp(
            "Use the demo database (demo.sqlite in the data folder), created with sample users and items on first use."
        ))
    var demo = false

    @Flag(
        help: ArgumentHelp(
            "Log what the store does (change tracking, checkpoints, reconnects, slow queries) on standard error.",
            discussion:
                "SHELF_LOG=LEVEL (trace, debug, info, …) does the same; SHELF_SLOW_QUERY_MS sets what is slow (100)."
        ))
    var verbose = false

    /// Opens the store the options name: the demo store (filled on first use, with a
    /// progress bar on a terminal), or the database, migrated. A SQLite file that does not
    /// exist is created only when `creating` (commands that add data); a command that reads
    /// or changes what is there says that nothing is there instead, and creates nothing.
    func openStore(creating: Bool = false) async throws -> Store {
        try LogSetup.start(verbose: verbose)
        guard demo else {
            let location = try resolvedLocation()
            if !creating, case .sqlite(let path) = location, !FileManager.default.fileExists(atPath: path) {
                throw CommandError(
                    "no database at \(path) (this command creates none); check --db or SHELF_DB, or make one: "
                        + "`shelf demo --db \(ShellQuoting.quoted(path))` adds sample data, `shelf users add --db "
                        + "\(ShellQuoting.quoted(path)) --name NAME --email EMAIL` starts an empty one, `shelf import` fills one"
                )
            }
            return try await OpenDatabases.open(location)
        }
        let store = try await OpenDatabases.open(.sqlite(path: try demoPath()))
        if try await store.users.users().isEmpty {
            let progress = ProgressLine(total: DemoData.defaultItems, label: "Creating the demo database")
            try await DemoData.fill(store, users: DemoData.defaultUsers, items: DemoData.defaultItems) {
                progress.update($0)
            }
            progress.finish()
        }
        return store
    }

    /// The location `--db` names, else `SHELF_DB`, else the default file.
    func resolvedLocation(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> StoreLocation {
        try LogSetup.start(verbose: verbose, environment: environment)
        // An empty --db is a mistake; an empty SHELF_DB counts as unset, as empty variables do.
        if let path { return try StoreLocation(parsing: path) }
        if let path = environment["SHELF_DB"], !path.isEmpty { return try StoreLocation(parsing: path) }
        return .sqlite(path: try Self.dataFolder(environment: environment) + "/shelf.sqlite")
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
