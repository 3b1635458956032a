import ArgumentParser
import Foundation
import ShelfStore

struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup", abstract: "Write a consistent copy of the whole database to a file.",
        discussion: """
            The copy is one snapshot, taken while other processes go on reading and writing, and a \
            complete database on its own (no -wal file). It is written beside FILE and renamed into \
            place, so FILE is either the old file or the whole copy. An existing FILE is replaced only \
            when shelf can prove it is an older shelf backup, untouched since (read since is fine; \
            written to, or its stamp cleared, it is kept). To restore, use `shelf restore FILE` (not cp).
            """)

    @OptionGroup var database: DatabaseOptions

    @Argument(help: ArgumentHelp("The file to write.", valueName: "file"))
    var file: String

    func validate() throws {
        if file == "-" {
            throw ValidationError(
                "a backup cannot go to standard output ('-'): it is a whole SQLite database, written "
                    + "beside its name and renamed into place; give a file (shelf backup backup.sqlite), "
                    + "or use shelf export to stream the rows")
        }
    }

    func run() async throws {
        let store = try await database.openStore()
        do {
            try await store.backup(to: file)
            SignalRelay.shared.workIsFinal()
        } catch  where error is CancellationError || Task.isCancelled {
            // The copy in progress is removed by the store; main reports no error after a
            // signal, so say here what the signal stopped.
            printError("Interrupted: \(file) was not written (a file that was there is left as it was).")
            throw CancellationError()
        }
    }
}
