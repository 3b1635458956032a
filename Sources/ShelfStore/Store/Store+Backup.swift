internal import Foundation

#if canImport(Glibc)
    internal import Glibc
#endif

extension Store {
    /// Writes a consistent copy of the whole store to `path`: one snapshot, taken while other
    /// connections and processes go on reading and writing (SQLite's `VACUUM INTO`, on a
    /// reader; on a server database, one
    /// REPEATABLE READ snapshot copied into a new SQLite shelf file). The copy is a complete single file, with no `-wal` beside it, and opens as a
    /// store of its own.
    ///
    /// The copy is written beside `path`, flushed to disk, then renamed over it, so `path`
    /// is either the old file or the whole new copy, never half of one. An existing `path`
    /// is replaced only when it is a shelf database (an older backup, say). When `path` is a
    /// symbolic link (or a chain of them), the copy is written where it points, whether a file
    /// is there yet or not, and the link stays as it is.
    /// - Throws: `StoreError` with `.invalidValue` when `path` is this store's own file (or
    ///   its `-wal`, `-shm`, `-journal`), is not a regular file, or holds something other
    ///   than a shelf, or is a link into a folder that does not exist; `.database` when the copy cannot be written (the folder is missing or
    ///   read-only, the disk is full). Nothing at `path` changes then.
    public func backup(to path: String) async throws {
        let target: String
        do {
            target = try OutputSafety.writtenPath(path)
        } catch {
            throw StoreError(.invalidValue, error.description + "; no backup was written")
        }
        // Refusals name what the user gave (a link to the store itself named only the store).
        try await backend.backup(to: target, shownAs: target == path ? path : "\(path) (a symbolic link to \(target))")
    }
}
