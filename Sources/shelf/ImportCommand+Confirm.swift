import Foundation
import ShelfStore
import ShelfTransfer

extension ImportCommand {
    /// Asks before a `replace` deletes items: the items the file lacks (items; whoever owns
    /// them), or those of the users the file lacks (users). On a terminal (stdin, when the
    /// data does not come from it) a question answered with y; else a refusal unless `--yes`
    /// was given. Runs on the import's thread, before anything is written; a signal while it
    /// waits ends the wait at once.
    static func confirm(
        _ deletions: ReplaceDeletions, table: TableArgument, yes: Bool, dataFromStandardInput: Bool
    ) throws {
        if yes { return }
        let what =
            table == .users
            ? "delete \(counted(deletions.users, "user")) that the file lacks, and with them "
                + "\(counted(deletions.items, "item")) they own\(ownersNote(deletions))"
            : "delete \(counted(deletions.items, "item")) that the file lacks\(ownersNote(deletions))"
        guard !dataFromStandardInput, isatty(0) == 1 else {
            throw CommandError(
                "--mode replace would \(what); nothing was changed. Pass --yes to delete them, or import with "
                    + "--mode upsert to keep them")
        }
        writeStandardError("--mode replace will \(what). Delete them? [y/N] ")
        var answer: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            if SignalRelay.shared.signal != nil { throw CancellationError() }
            var entry = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 100)
            if ready < 0, errno == EINTR { continue }
            if ready == 0 { continue }
            let count = read(0, &byte, 1)
            if count < 0, errno == EINTR { continue }
            if count <= 0 || byte == UInt8(ascii: "\n") { break }
            if answer.count < 64 { answer.append(byte) }
        }
        let reply = String(decoding: answer, as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased()
        guard reply == "y" || reply == "yes" else {
            throw CommandError("nothing was changed (the deletion was not confirmed)")
        }
    }

    /// Whose items a `replace` deletes, for its question and summary: " (4 of ann@example.com,
    /// 1 of bob@example.com and 3 of 2 more owners)"; empty when no item goes.
    static func ownersNote(_ deletions: ReplaceDeletions) -> String {
        guard deletions.items > 0, !deletions.owners.isEmpty else { return "" }
        var parts = deletions.owners.map { "\($0.items) of \(Sanitized($0.email))" }
        let named = deletions.owners.reduce(0) { $0 + $1.items }
        let others = deletions.ownerCount - deletions.owners.count
        if others > 0 { parts.append("\(deletions.items - named) of \(counted(others, "more owner"))") }
        let list =
            parts.count == 1 ? parts[0] : parts.dropLast().joined(separator: ", ") + " and " + parts[parts.count - 1]
        return " (\(list))"
    }
}
