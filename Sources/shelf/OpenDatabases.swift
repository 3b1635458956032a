import Foundation
import ShelfSQLiteBackend
import ShelfStore
import Synchronization

#if PostgreSQL
    import ShelfPostgres
#endif

/// The stores the command opened, so that the process closes every one before it exits.
///
/// `Store.close()` is deterministic: when it returns, a SQLite store's connections are closed
/// and, when this process was the last one at the file, its WAL has been checkpointed into the
/// file and removed; a server store's connections are ended. So `main` closes them all, then
/// exits.
enum OpenDatabases {
    private static let databases = Mutex<[String]>([])
    private static let stores = Mutex<[Store]>([])

    /// The settings every store opens with, from the `SHELF_*` variables.
    static let configuration = Store.Configuration.fromEnvironment()

    /// The database files opened so far, as resolved paths.
    static var files: [String] { databases.withLock { $0 } }

    /// Opens the store at `location` and remembers it, to close it before the process exits.
    /// What the open repaired (`Store.repairs`: a count table another program dropped) is
    /// said on stderr, unless `sayingRepairs` is false (`shelf migrate` prints it itself).
    static func open(_ location: StoreLocation, sayingRepairs: Bool = true) async throws -> Store {
        switch location {
        case .sqlite(let path): return try open(path)
        case .postgres(let url):
            #if PostgreSQL
                let store = try await Store.open(postgres: url, configuration: configuration)
                stores.withLock { $0.append(store) }
                if sayingRepairs {
                    for repair in store.repairs {
                        try? FileHandle.standardError.write(contentsOf: Data("shelf: repaired: \(repair)\n".utf8))
                    }
                }
                return store
            #else
                _ = url
                throw CommandError(
                    "\(location): this shelf was built without PostgreSQL support; build it with "
                        + "`swift build --traits PostgreSQL` (or run it with `swift run --traits PostgreSQL shelf …`)")
            #endif
        }
    }

    /// Opens the SQLite store at `path` and remembers it and its file.
    static func open(_ path: String) throws -> Store {
        // What copies into this folder that were killed before they finished left (their
        // claim is gone; a running copy's file stays): removed at the next open, and said.
        let folder = (path as NSString).deletingLastPathComponent
        sayRemoved(WorkFile.removeAbandonedCopies(in: folder.isEmpty ? "." : folder))
        let store = try Store(path: path, configuration: configuration)
        stores.withLock { $0.append(store) }
        if let resolved = realpath(path, nil) {
            let file = String(cString: resolved)
            free(resolved)
            databases.withLock { $0.append(file) }
        }
        return store
    }

    /// Says on stderr that each of `removed` (`WorkFile.removeAbandonedCopies`, or
    /// `removeAbandonedKeeps` for `of: "a restore"`) was removed.
    static func sayRemoved(_ removed: [(path: String, bytes: Int)], of work: String = "a copy") {
        for file in removed {
            let size = file.bytes >= 1 << 20 ? "\(file.bytes >> 20) MB" : "\(file.bytes) bytes"
            printError(
                "shelf: removed \(Sanitized(file.path)) (\(size)), the unfinished work file of \(work) that was stopped "
                    + "(kill -9, a crash) before it finished")
        }
    }

    /// Closes every store the command opened, waiting for the reads and writes still in
    /// progress: when this returns, each SQLite file's WAL is merged and removed (unless
    /// another process still has the file open) and each server store's connections are
    /// ended.
    static func closeAll() async {
        let open = stores.withLock { stores in
            defer { stores.removeAll() }
            return stores
        }
        for store in open { await store.close() }
    }

    /// Warns about each database whose WAL could not be merged into it on close.
    static func warnAboutUnmergedWAL() {
        for file in files {
            if let warning = Store.leftoverWALWarning(path: file, timeout: configuration.writeTimeout) {
                printError(warning)
            }
        }
    }
}
