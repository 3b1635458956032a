import ArgumentParser
import Foundation

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
