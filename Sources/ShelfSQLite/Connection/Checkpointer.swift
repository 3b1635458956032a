internal import CSQLite
internal import Dispatch
internal import Logging
internal import Synchronization

/// Moves WAL checkpoints off the commit path.
///
/// SQLite's automatic checkpoint runs inside the COMMIT that crosses the threshold, on the
/// writer, and includes an fsync: one commit in a thousand pays milliseconds. Shelf turns it
/// off on the writer and watches the WAL size after each commit instead (`sqlite3_wal_hook`);
/// past `thresholdPages` it runs a PASSIVE checkpoint on its own connection and queue, which
/// neither blocks readers nor waits for the writer. Later commits reset the WAL to its start
/// once every frame is checkpointed.
///
/// A passive checkpoint cannot always catch up: under back-to-back commits, with readers
/// holding snapshots, the WAL never gets back to its start and grows without bound (67 MB
/// after 1,000 one-row commits was seen). So past `hardLimitPages` the writer itself runs a
/// RESTART checkpoint right after its commit, waiting at most `truncateWait` for readers;
/// the next commit then writes the WAL from its start again, over the file's existing blocks.
/// If readers hold on longer, the next commits try again, every `retrySpacing` frames.
/// `journalSizeLimit` trims a WAL left larger than that whenever it is reset.
///
/// RESTART, not TRUNCATE: a WAL truncated to zero bytes is grown back block by block by the
/// commits after it (the file system allocates, zeroes and caches each new page again), and
/// under back-to-back one-row commits that cost a quarter of the writer's time
/// (`store.one_row_writes` 0.69 of raw C with RESTART against 0.53 with TRUNCATE, load
/// 0.5-1.3). The file stays at most `journalSizeLimit` (16 MiB) while the store is open
/// (the 4,000 frames of the hard limit are 16.5 MB); closing the store removes it.
final class Checkpointer: Sendable {
    /// The same threshold as SQLite's default automatic checkpoint.
    static let thresholdPages: Int32 = 1000
    /// The WAL size (in frames) at which the writer checkpoints all of it itself, so that it
    /// starts over.
    static let hardLimitPages: Int32 = 4000
    /// Frames between two attempts at the hard limit when readers kept the first from finishing;
    /// doubled after each attempt they kept from finishing, up to `retrySpacing << maxBackoff`.
    /// A reader holding one snapshot for long (a copy of the store reads one for all its rows)
    /// keeps every attempt from finishing, and each waited `truncateWait` on the writer: at
    /// every 256 frames, a write in ten waited 100 ms (writers' p99 during a copy 101 ms, 0.86 ms
    /// without, issue 25). The WAL does not grow for the spacing: passive checkpoints and
    /// SQLite's reset of a fully checkpointed WAL go on; only its trimming waits.
    static let retrySpacing: Int32 = 256
    /// How many times the spacing doubles at most (256 frames to 4,096).
    static let maxBackoff = 4
    /// The longest a commit past the hard limit waits for readers to leave the WAL.
    static let truncateWait: Int32 = 100
    /// Bytes a reset WAL is truncated to.
    static let journalSizeLimit = 16 << 20

    private let path: String
    /// The writer's busy timeout, restored after a truncate's shorter wait.
    private let writerTimeout: Int32
    private let queue = DispatchQueue(label: "shelf.checkpointer", qos: .utility)
    private let state = Mutex<(scheduled: Bool, connection: Connection?)>((false, nil))
    /// The WAL size at the last failed truncate attempt and how many attempts in a row failed,
    /// for the spacing of the next one.
    private let lastAttempt = Mutex<(pages: Int32, failures: Int)>((0, 0))
    /// The writer's busy handler, set by `install(on:)`: a truncate waits less.
    private let writerWait = Mutex<BusyWait?>(nil)
    /// Set by `Database.write(interruption:checkpointsInBackground:_:)` for its one transaction:
    /// its commit leaves even a WAL past `hardLimitPages` to the passive checkpoint.
    private let truncateDeferred = Atomic<Bool>(false)

    init(path: String, writerTimeout: Int32) {
        self.path = path
        self.writerTimeout = writerTimeout
    }

    /// Installs the WAL hook on `writer`, replacing SQLite's automatic checkpoint.
    func install(on writer: Connection) {
        writerWait.withLock { $0 = writer.busyWait }
        sqlite3_wal_hook(writer.handle, walHook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Removes the hook; call before the checkpointer is released.
    func uninstall(from writer: Connection) {
        sqlite3_wal_hook(writer.handle, nil, nil)
    }

    /// While true, a commit past `hardLimitPages` does not checkpoint on the writer: the passive
    /// checkpoint copies the WAL on the checkpointer's queue, after the commit has returned,
    /// and a later commit starts the WAL over (and trims it to `journalSizeLimit`). For a write
    /// of most of a big table: 750,000 items marked done left 206 MB of WAL, and copying it
    /// back (with its fsync) on the writer came before the action could say it was done.
    /// Only the writer's thread sets it, around one transaction.
    func deferTruncate(_ deferred: Bool) {
        truncateDeferred.store(deferred, ordering: .relaxed)
    }

    /// Commits of the writer that wrote to the WAL: SQLite calls the hook after each of them,
    /// and only for them (a transaction that changed no page writes nothing, and is not told).
    var walCommits: Int { commits.load(ordering: .relaxed) }
    private let commits = Atomic<Int>(0)

    /// Restarting checkpoints tried on the writer (past `hardLimitPages`), and how many of them
    /// finished (the next commit then starts the WAL over), for tests.
    var restartAttempts: (tried: Int, finished: Int) {
        (attempts.load(ordering: .relaxed), restarts.load(ordering: .relaxed))
    }
    private let attempts = Atomic<Int>(0)
    private let restarts = Atomic<Int>(0)

    fileprivate func walGrew(to pages: Int32, writer: OpaquePointer) {
        commits.add(1, ordering: .relaxed)
        guard pages >= Self.thresholdPages else { return }
        if pages >= Self.hardLimitPages, !truncateDeferred.load(ordering: .relaxed) {
            let due = lastAttempt.withLock { last in
                let spacing = Self.retrySpacing << Int32(min(last.failures, Self.maxBackoff))
                return pages < last.pages || pages - last.pages >= spacing || last.pages == 0
            }
            if due {
                // A passive checkpoint running on the background connection holds the
                // checkpoint lock for as long as it copies pages: let it finish first.
                queue.sync {}
                attempts.add(1, ordering: .relaxed)
                let wait = writerWait.withLock { $0 }
                wait?.setTimeout(milliseconds: Self.truncateWait)
                let code = sqlite3_wal_checkpoint_v2(writer, nil, SQLITE_CHECKPOINT_RESTART, nil, nil)
                wait?.setTimeout(milliseconds: writerTimeout)
                let outcome =
                    code == SQLITE_OK
                    ? "copied all of it; it starts over" : "found readers in the way (code \(code)); retrying later"
                Diagnostics.logger.debug(
                    "WAL at \(pages) pages: a restarting checkpoint on the writer \(outcome)",
                    metadata: ["path": "\(path)"])
                // A WAL reset since the last attempt (it is smaller) starts the spacing over.
                lastAttempt.withLock { last in
                    last = code == SQLITE_OK ? (0, 0) : (pages, pages < last.pages ? 1 : last.failures + 1)
                }
                if code == SQLITE_OK {
                    restarts.add(1, ordering: .relaxed)
                    return
                }
            }
        }
        let start = state.withLock { state -> Bool in
            guard !state.scheduled else { return false }
            state.scheduled = true
            return true
        }
        guard start else { return }
        queue.async { [self] in
            let connection = state.withLock { $0.connection } ?? Self.openConnection(path)
            if let connection {
                var logged: Int32 = 0
                var copied: Int32 = 0
                let code = sqlite3_wal_checkpoint_v2(
                    connection.handle, nil, SQLITE_CHECKPOINT_PASSIVE, &logged, &copied)
                Diagnostics.logger.debug(
                    "passive checkpoint: \(copied) of \(logged) WAL pages copied into the database (code \(code))",
                    metadata: ["path": "\(path)"])
            } else {
                Diagnostics.logger.debug("no connection for checkpoints", metadata: ["path": "\(path)"])
            }
            state.withLock {
                $0.connection = connection
                $0.scheduled = false
            }
        }
    }

    /// A connection for checkpoints. It reads the schema once so that it has opened the WAL:
    /// a connection that has not read anything yet reports "not in WAL mode" to a checkpoint.
    private static func openConnection(_ path: String) -> Connection? {
        guard let connection = try? Connection(path: path) else { return nil }
        connection.setBusyTimeout(milliseconds: 1000)
        guard (try? connection.execute("SELECT count(*) FROM sqlite_schema")) != nil else { return nil }
        return connection
    }

    /// Waits for a checkpoint in progress, then closes the checkpointer's connection.
    func closeConnection() {
        queue.sync {
            state.withLock { state in
                state.connection?.close()
                state.connection = nil
            }
        }
    }

    /// Waits for a checkpoint in progress (for tests).
    func waitUntilIdle() {
        queue.sync {}
    }
}

/// Called by SQLite after every commit on the writer, with the WAL's size in pages.
private func walHook(
    context: UnsafeMutableRawPointer?, database: OpaquePointer?, name: UnsafePointer<CChar>?, pages: Int32
) -> Int32 {
    if let context, let database {
        Unmanaged<Checkpointer>.fromOpaque(context).takeUnretainedValue().walGrew(to: pages, writer: database)
    }
    return SQLITE_OK
}
