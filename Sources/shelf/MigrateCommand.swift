import ArgumentParser
import ShelfStore

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Bring the database schema up to date.")

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "List every migration and whether it is applied, without changing anything.")
    var status = false

    func run() async throws {
        let path = try database.resolvedPath()
        if status {
            try printLine("database: \(path)")
            for migration in try Store.migrationStatus(path: path) {
                try printLine(migration.line)
            }
            return
        }
        let store = try OpenDatabases.open(path)
        if store.appliedMigrations.isEmpty {
            try printLine("\(path) is up to date")
        } else {
            for name in store.appliedMigrations { try printLine("applied \(name)") }
        }
    }
}
