import ArgumentParser
import Foundation
import ShelfReactive
import ShelfSQLiteBackend
import ShelfStore

struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Put a backup in place of the store.",
        discussion: """
            BACKUP is a file `shelf backup` wrote. It is checked first (a shelf database, \
            integrity_check and the search index's check, every table, index and trigger this \
            shelf's schema has, not from a newer shelf; an older one is migrated), and the restore is refused while any process has the store open (they are named).

            A SQLite store is then swapped for the checked copy atomically: the store it replaces is \
            kept as NAME.before-restore-TIME (UTC) beside it, and at every moment the store's path is \
            either the old store or the whole restored one. A PostgreSQL store has its contents \
            replaced in one transaction. Processes that open the store afterwards see the restored data.
            """)

    @OptionGroup var database: DatabaseOptions

    @Argument(help: ArgumentHelp("The backup file to restore.", valueName: "backup"))
    var backup: String

    func run() async throws {
        // What was restored goes to stdout: refused now, not after a restore reported as failed.
        try StandardOutput.checkOpen()
        let location = try database.resolvedLocation()
        switch location {
        case .sqlite(let path):
            let outcome: RestoreOutcome
            do {
                // A signal before the swap stops it: nothing is restored. After it, the restore is
                // done and said so, with exit status 0.
                outcome = try await BlockingWork.run { cancellation in
                    try Store.restore(backup: backup, toFile: path) { cancellation.isCancelled }
                }
                SignalRelay.shared.workIsFinal()
            } catch let error where error is CancellationError || Task.isCancelled {
                printError("Interrupted: nothing was restored; \(Sanitized(path)) is as it was.")
                throw CancellationError()
            }
            let counts = outcome.restored.counts.map { "\($0.table) \($0.rows)" }.joined(separator: ", ")
            var text = "Restored \(Sanitized(path)) from \(Sanitized(backup)) (\(counts)).\n"
            if let kept = outcome.keptAs { text += "The store it replaced is kept as \(Sanitized(kept)).\n" }
            try StandardOutput.write(text)
        case .postgres:
            let store = try await OpenDatabases.open(location)
            let progress = ProgressLine(total: 0, label: "Restoring")
            let report: CopyReport
            do {
                report = try await store.restore(from: backup) { progress.show($0) }
                progress.finish()
            } catch let error where error is CancellationError || Task.isCancelled {
                progress.finish()
                printError("Interrupted: nothing was restored; \(store.location) is as it was.")
                throw CancellationError()
            } catch let error as StoreError where error.isConnectionLost {
                // The transaction never committed: say what the target is, not only what failed.
                progress.finish()
                throw CommandError("\(error.message); nothing was restored: \(store.location) is as it was")
            } catch {
                progress.finish()
                throw error
            }
            var summary = CopyCommand.summary(report, from: backup, to: store.location)
            if report.matches, summary.hasSuffix("Copied: both sides match.\n") {
                summary.removeLast("Copied: both sides match.\n".count)
                summary += "Restored \(store.location) from \(Sanitized(backup)): both sides match.\n"
            }
            try StandardOutput.write(summary)
            guard report.matches else {
                throw CommandError(
                    "\(store.location) read back differs from \(backup); nothing was committed and it is as it was")
            }
        }
    }
}
