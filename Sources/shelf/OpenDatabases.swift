import Foundation
import ShelfStore
import ShelfSQLiteBackend
import Synchronization

#if PostgreSQL
    import ShelfPostgres
#endif

/// The databases the command opened, so the process exits only once they are closed.
///
/// A store is released when its last reference goes, and its last connection then
/// checkpoints the WAL and deletes the `-wal` file. References can outlive the command by a
/// moment (a worker thread that resumed the command still holds the database until its block
/// returns); exiting in that moment would leave the `-wal` file behind. So `main` waits until
/// no descriptor of this process refers to these files any more.
enum OpenDatabases {
    private static let paths = Mutex<Set<String>>([])
    private static let databases = Mutex<[String]>([])

    /// The database files opened so far, as resolved paths.
    static var files: [String] { databases.withLock { $0 } }

    private static let servers = Mutex<[Store]>([])

    /// Opens the store at `location` and remembers it, to close it before the process exits.
    static func open(_ location: StoreLocation) async throws -> Store {
        switch location {
        case .sqlite(let path): return try open(path)
        case .postgres(let url):
            #if PostgreSQL
                let store = try await Store.open(postgres: url)
                servers.withLock { $0.append(store) }
                return store
            #else
                _ = url
                throw CommandError(
                    "\(location): this shelf was built without PostgreSQL support; build it with "
                        + "`swift build --traits PostgreSQL` (or run it with `swift run --traits PostgreSQL shelf …`)")
            #endif
        }
    }

    /// Ends the connections of every server store the command opened.
    static func closeServers() async {
        for store in servers.withLock({ $0 }) { await store.close() }
    }

    /// Opens the SQLite store at `path` and remembers its files.
    static func open(_ path: String) throws -> Store {
        let store = try Store(path: path)
        if let resolved = realpath(path, nil) {
            let file = String(cString: resolved)
            free(resolved)
            paths.withLock { $0.formUnion([file, file + "-wal", file + "-shm", file + "-journal"]) }
            databases.withLock { $0.append(file) }
        }
        return store
    }

    /// Waits until this process holds none of the files open, at most `limit` (a store kept
    /// alive by mistake must not keep the process from ending).
    static func waitUntilClosed(limit: Duration = .seconds(5)) {
        let files = paths.withLock { $0 }
        guard !files.isEmpty else { return }
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline, holdsAny(of: files) {
            usleep(1000)
        }
    }

    /// Warns about each database whose WAL could not be merged into it on close.
    static func warnAboutUnmergedWAL() {
        for file in files {
            if let warning = Store.leftoverWALWarning(path: file) { printError(warning) }
        }
    }

    /// True when a descriptor of this process names one of `files`.
    private static func holdsAny(of files: Set<String>) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return false }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        for name in names {
            let count = readlink("/proc/self/fd/" + name, &buffer, buffer.count - 1)
            guard count > 0 else { continue }
            let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if files.contains(target) { return true }
        }
        return false
    }
}
