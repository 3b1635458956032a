import ArgumentParser
import Foundation
import ShelfStore
import ShelfTransfer

/// `users` or `items`, as a command argument.
enum TableArgument: String, ExpressibleByArgument, CaseIterable {
    case users, items
}

/// Runs an export: a closed stdout pipe ends the command quietly (`ReaderGone`), and so does
/// a FIFO given with `-o` whose reader goes away (it is a pipe too, and `> FIFO` ended quietly
/// while `-o FIFO` exited 1: coreutils treat both alike, silently, and so does shelf); any
/// other `TransferError` (a full disk, a refused destination) becomes a `CommandError`.
func exporting(toStandardOutput: Bool = true, _ body: () async throws -> Void) async throws {
    if toStandardOutput { try StandardOutput.checkOpen() }
    do {
        try await body()
    } catch let error as TransferError {
        if StandardOutput.readerIsGone || error.readerGone { throw ReaderGone() }
        throw CommandError(error.description)
    }
}
