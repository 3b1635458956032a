import ArgumentParser
import Foundation
import ShelfStore
import ShelfTransfer

/// `users` or `items`, as a command argument.
enum TableArgument: String, ExpressibleByArgument, CaseIterable {
    case users, items
}

/// Runs an export: a closed stdout pipe ends the command quietly (`ReaderGone`), any other
/// `TransferError` (a full disk, a refused destination) becomes a `CommandError`.
func exporting(toStandardOutput: Bool = true, _ body: () async throws -> Void) async throws {
    if toStandardOutput { try StandardOutput.checkOpen() }
    do {
        try await body()
    } catch let error as TransferError {
        if StandardOutput.readerIsGone { throw ReaderGone() }
        throw CommandError(error.description)
    }
}
