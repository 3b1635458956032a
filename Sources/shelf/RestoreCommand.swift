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
            replaced in one transaction; what it held is first written, inside that transaction, to a \
            SQLite backup file, DATABASE.before-restore-TIME.sqlite beside BACKUP (--keep-as names \
            another), which `shelf restore` puts back. --no-keep keeps nothing of it. Processes that \
            open the store afterwards see the restored data.
            """)

    @OptionGroup var database: DatabaseOptions

    @Argument(help: ArgumentHelp("The backup file to restore.", valueName: "backup"))
    var backup: String

    @Option(
        help: ArgumentHelp(
            "PostgreSQL: where to keep what the store holds before the restore (a new file; default: "
                + "DATABASE.before-restore-TIME.sqlite beside BACKUP).", valueName: "path"))
    var keepAs: String?

    @Flag(help: "PostgreSQL: keep nothing of what the store holds before the restore.")
    var noKeep = false

    func validate() throws {
        if noKeep, keepAs != nil { throw ValidationError("--no-keep and --keep-as contradict each other; give one") }
    }

    func run() async throws {
        // What was restored goes to stdout: refused now, not after a restore reported as failed.
        try StandardOutput.checkOpen()
        let location = try database.resolvedLocation()
        switch location {
        case .sqlite(let path):
            if noKeep || keepAs != nil {
                throw ValidationError(
                    "--no-keep and --keep-as are for a PostgreSQL store; a SQLite store's replaced file is always kept "
                        + "as NAME.before-restore-TIME beside it (a link: it costs no copy)")
            }
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
        case .postgres(let url):
            let store = try await OpenDatabases.open(location)
            let kept = noKeep ? nil : (keepAs ?? Self.keptName(database: url, beside: backup, now: Date()))
            // What restores killed while they wrote their kept file left beside it (or beside the
            // backup, where the default kept file goes), whatever its name: removed, and said.
            for place in Set([backup] + (kept.map { [$0] } ?? [])) {
                let folder = (place as NSString).deletingLastPathComponent
                OpenDatabases.sayRemoved(WorkFile.removeAbandonedKeeps(in: folder), of: "a restore")
            }
            let progress = ProgressLine(total: 0, label: "Restoring")
            let report: CopyReport
            do {
                report = try await store.restore(from: backup, keepingReplacedAs: kept) { progress.show($0) }
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
            guard report.matches else {
                try StandardOutput.write(summary)
                throw CommandError(
                    "\(store.location) read back differs from \(backup); nothing was committed and it is as it was")
            }
            if let kept {
                summary +=
                    "What it held before is kept in \(Sanitized(kept)); to put that back: shelf restore --db "
                    + "\(store.location) \(ShellQuoting.quoted(kept))\n"
            } else {
                summary += "Nothing of what it held before was kept (--no-keep).\n"
            }
            try StandardOutput.write(summary)
        }
    }

    /// `DATABASE.before-restore-YYYYMMDDTHHMMSSZ.sqlite` in the folder of `backup`, with
    /// `-2`, `-3`… when taken: the name a SQLite store's kept file has, for a database.
    static func keptName(database url: String, beside backup: String, now: Date) -> String {
        let name = URLComponents(string: url).map { String($0.path.drop { $0 == "/" }) } ?? ""
        let folder = (backup as NSString).deletingLastPathComponent
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        // A database name may hold a slash or a dot-dot: the file stays in the folder.
        let safe = (name.isEmpty ? "postgres" : name).map { $0 == "/" ? "_" : $0 }
        let base =
            (folder.isEmpty ? "" : folder + "/") + String(safe) + ".before-restore-" + formatter.string(from: now)
        var candidate = base + ".sqlite"
        var number = 2
        while FileManager.default.fileExists(atPath: candidate) {
            candidate = "\(base)-\(number).sqlite"
            number += 1
        }
        return candidate
    }
}
