import ArgumentParser
import Foundation
import ShelfStore

/// `shelf demo`: fills a database with realistic sample users and items.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Fill a database with realistic sample users and items.",
        discussion:
            "Adds to what is there: the sample users are the same on every run, and those already there get the new items. A progress bar shows on a terminal."
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: "How many users to add.")
    var users = 40

    @Option(help: "How many items to add.")
    var items = 20_000

    func validate() throws {
        guard users >= 1 else { throw ValidationError("--users must be at least 1") }
        guard items >= 0 else { throw ValidationError("--items must be 0 or more") }
    }

    func run() async throws {
        let store = try await OpenDatabases.open(
            database.demo ? .sqlite(path: try database.demoPath()) : try database.resolvedLocation())
        let progress = ProgressLine(total: items, label: "Adding sample items")
        let start = ContinuousClock.now
        let added = try await DemoData.fill(store, users: users, items: items) { progress.update($0) }
        progress.finish()
        let seconds = (ContinuousClock.now - start).seconds
        let kept = users - added
        let reused = kept > 0 ? " (\(kept) sample users were there already)" : ""
        try printLine(
            "Added \(added) users and \(items) items to \(store.location) in \(String(format: "%.1f", seconds)) s.\(reused)"
        )
    }
}
