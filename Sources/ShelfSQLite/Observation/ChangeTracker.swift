package import Dispatch
internal import Foundation
internal import Logging
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// Something that depends on tables and wants to know when a commit changed one of them.
package protocol TableObserver: AnyObject, Sendable {
    /// The tables it reads, or nil when not known yet (then every change concerns it).
    var observedTables: Set<String>? { get }
    /// Called serially, after a commit changed an observed table, on the tracker's queue.
    func tablesDidChange()
    /// Called serially, like `tablesDidChange`, when the database can no longer be read through this
    /// process's connections (its file was deleted or replaced); nothing is called after it.
    func databaseDidFail(_ error: any Error)
}

/// Learns which tables each commit changed, in this process and in others, and tells the
/// `TableObserver`s that read them.
///
/// **How it knows.** The schema keeps per-table counters in a table the database's owner
/// names (`Database(path:changeCounters:)`; Shelf's is `shelf_changes`, with columns
/// `table_name` and `counter`), bumped by triggers on every row change (see Shelf's
/// `Migrations/0002_change_counters.sql`). A commit made
/// through this `Database` reads the counters inside its transaction, just before COMMIT;
/// a commit by any other connection or process is noticed through inotify on the database
/// and WAL files, after which the counters are read on a reader. Either way the changed
/// tables are the counters that moved, so one mechanism covers both, a rolled-back
/// transaction moves nothing, and a write to a table without counters wakes no observer.
/// Without such a table every commit concerns every observer. A file event that
/// this process's own commit caused reads nothing: while no other process holds the write
/// lock and the WAL index's change counter (`iChange`, moved by every commit) is where this
/// process's latest commit left it, no commit happened since the one whose counters are
/// already known.
///
/// **Coalescing.** Work runs one piece at a time: passes, and the work `enqueue` is given,
/// hold `passLock` while they run. Commits that arrive while a pass is running are merged
/// into the next pass, so a burst of commits costs one re-run per observer, never a queue of
/// stale ones. Idle, it uses no CPU: the file watcher blocks in `poll(2)`.
///
/// **Where passes run.** On the tracker's serial queue, never on a committing thread: a write
/// returns once committed, whatever its observers cost. Deliveries stay in order: every pass
/// and every enqueued piece holds `passLock`, so none overlaps another, and each pass reads a
/// snapshot no older than the last one's.
package final class ChangeTracker: Sendable {
    struct State {
        var observers: [ObjectIdentifier: WeakObserver] = [:]
        var nextRegistration: UInt64 = 0
        /// The counters as of the last pass; nil until the first observer registers.
        var counters: [String: Int64]?
        var pending = Pending()
        var scheduled = false
        var watcher: (any FileWatcher)?
        var safetyTimer: (any DispatchSourceTimer)?
        /// Set once the file was deleted or replaced; every run fails with it from then on.
        var terminalFailure: DatabaseError?
        var stopped = false
        /// `ownWrites` and `ownWritesEnded` at the last look prompted by a file event.
        var ownWritesAtLastLook: (started: UInt64, ended: UInt64) = (0, 0)
        /// Looks again scheduled because a commit might have been under way (for tests).
        var followUps = 0
        /// The WAL index's change counter as this process's latest tracked commit left it
        /// (see `didCommit`): while the counter still has this value, nothing was committed
        /// since, and a file event needs no read of the counters.
        var ownCommitChange: UInt32?
        /// Reads of the counters for file events and periodic checks (for tests).
        var externalReads = 0
        /// File events that needed no pass (see `fileEventIsOwnCommit`; for tests).
        var eventsWithoutPass = 0
    }

    struct Pending {
        var snapshot: [String: Int64]?
        var unknown = false
        var external = false
        /// How many times this external change was checked already without finding a moved
        /// counter (the writer may not have finished its commit at the first look).
        var externalAttempt = 0
        var isEmpty: Bool { snapshot == nil && !unknown && !external }
    }

    /// A registration. Only ever copied under the lock, never loaded there: loading a weak
    /// reference makes a strong one, and if that became the last reference (its owner
    /// released it on another thread meanwhile) the observer's deinit would run inside the
    /// lock and call `unregister`, which takes the same lock (a crash seen in a benchmark:
    /// "Recursive call to lock Mutex"). `registration` tells a re-registration at a reused
    /// address apart from the dead one it replaces.
    struct WeakObserver {
        weak var observer: (any TableObserver)?
        let registration: UInt64
    }

    struct WeakDatabase {
        weak var database: Database?
    }

    let state = Mutex(State())
    let queue = DispatchQueue(label: "shelf.change-tracker")
    /// A serial queue for an observer's own work, drained by the tracker's queue: what an
    /// observer schedules from `tablesDidChange()` runs right after the tracker's pass on the
    /// thread that ran it (no thread is woken for it), and never beside a tracker pass.
    package func observerQueue(label: String) -> DispatchQueue {
        DispatchQueue(label: label, target: queue)
    }
    /// Held by every pass and every enqueued piece of work while it runs, wherever it runs:
    /// what keeps them serial now that a pass may run outside `queue` (see the type's notes).
    let passLock = NSLock()
    let path: String?
    /// The database this tracker belongs to; weak, since the database owns the tracker.
    let owner = Mutex(WeakDatabase())

    /// The file's device and inode when the database was opened (set by `attach`, once the
    /// file exists).
    let identity = Mutex<FileIdentity?>(nil)
    /// A connection of the tracker's own for `PRAGMA data_version`, opened on first use.
    let versionConnection = Mutex<(connection: Connection?, version: Int64?)>((nil, nil))
    /// Whether commits by other processes are learned from file events (tests turn it off to
    /// prove that the safety check alone finds them).
    private let watchesFiles: Bool
    /// The WAL index, to see whether another process is in the middle of a commit.
    let walIndex: WALIndexFile?
    /// Write transactions started through this process's writer.
    let ownWrites = Atomic<UInt64>(0)
    /// Write transactions of this process's writer that have ended (committed or not).
    let ownWritesEnded = Atomic<UInt64>(0)

    /// How often, while observers exist, the tracker checks `PRAGMA data_version` and the
    /// file's identity, in case a file event was missed or coalesced away.
    static let safetyInterval: DispatchTimeInterval = .seconds(1)

    /// `SELECT table_name, counter FROM <the counter table>`; nil when none was named.
    let countersSQL: String?

    init(path: String?, changeCounters: String?, watchesFiles: Bool = true) {
        countersSQL = changeCounters.map {
            "SELECT table_name, counter FROM \"\($0.replacingOccurrences(of: "\"", with: "\"\""))\""
        }
        self.path = path
        self.watchesFiles = watchesFiles
        walIndex = path.map(WALIndexFile.init(databasePath:))
    }

    /// Why the database can no longer be read through this process's connections, if it
    /// cannot: its file was deleted or replaced while open.
    package var terminalFailure: DatabaseError? { state.withLock { $0.terminalFailure } }

    /// True once the database is closing.
    package var isStopped: Bool { state.withLock { $0.stopped } }

    /// `identity`: the file's, taken before the database's connections opened it (nil when
    /// there was no file yet: it is taken now).
    func attach(to database: Database, identity early: FileIdentity?) {
        owner.withLock { $0.database = database }
        let opened = early ?? path.flatMap(FileIdentity.init(path:))
        identity.withLock { $0 = opened }
    }

    /// The counters as a reader sees them now; nil when there are none (or no database).
    func readCounters() -> [String: Int64]? {
        guard let database = owner.withLock({ $0.database }) else { return nil }
        return try? database.read { try counters(on: $0) }
    }

    /// The counters on `connection`, or nil when the database keeps none.
    func counters(on connection: Connection) throws -> [String: Int64]? {
        guard let countersSQL else { return nil }
        let statement: Statement
        do {
            statement = try connection.cachedStatement(countersSQL)
        } catch DatabaseError.error {
            return nil  // no such table (yet: migrations create it)
        }
        var counters: [String: Int64] = [:]
        try statement.forEachRow { row in
            counters[try row.string(0)] = try row.int64(1)
        }
        // A schema change (a table renamed or dropped by another process) moves no counter
        // but can break every query: it counts as a change of unknown tables.
        if let version = try connection.fetchOne("PRAGMA schema_version", row: { try $0.int64(0) }) {
            counters[Self.schemaKey] = version
        }
        return counters
    }

    /// The counter that stands for the schema's version (no table has this name).
    static let schemaKey = "\u{0}schema"

    /// Starts telling `observer` about changes to its tables. Held weakly; a released
    /// observer is dropped on its own.
    package func register(_ observer: any TableObserver) {
        let needsStart = state.withLock { state -> Bool in
            state.nextRegistration += 1
            state.observers[ObjectIdentifier(observer)] = WeakObserver(
                observer: observer, registration: state.nextRegistration)
            // Watching again after the last observer had gone: the safety check restarts.
            if state.counters != nil { startSafetyTimer(&state) }
            return state.counters == nil
        }
        if needsStart {
            // Baseline counters and the file watcher, once. Read on the calling thread, not
            // on the tracker's queue: a live query may be created from inside an observer
            // that the queue is running (waiting for the queue there would deadlock). The
            // data_version baseline comes first: a commit between the two is then seen twice
            // (harmless), never missed.
            if let path { dataVersionMoved(path) }
            let counters = readCounters() ?? [:]
            state.withLock { state in
                if state.counters == nil { state.counters = counters }
                guard !state.stopped, path != nil else { return }
                if state.watcher == nil, watchesFiles, let path {
                    state.watcher = makeFileWatcher(databasePath: path) { [weak self] in self?.externalChange() }
                }
                startSafetyTimer(&state)
            }
        }
    }

    /// Starts the once-a-second check unless it runs, the tracker stopped, or there is no file.
    private func startSafetyTimer(_ state: inout State) {
        guard state.safetyTimer == nil, !state.stopped, path != nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + Self.safetyInterval, repeating: Self.safetyInterval)
        timer.setEventHandler { [weak self] in self?.safetyCheck() }
        timer.resume()
        state.safetyTimer = timer
    }

    /// How many observers are registered (released ones leave at the next pass; for tests).
    package var registeredCount: Int { state.withLock { $0.observers.count } }

    /// How many times a look prompted by a file event found nothing new and scheduled another,
    /// because a commit might still have been under way (for tests).
    package var followUpCount: Int { state.withLock { $0.followUps } }

    /// True while the once-a-second check is scheduled (for tests).
    package var isCheckingPeriodically: Bool { state.withLock { $0.safetyTimer != nil } }

    /// True once an observer has registered: until then commits need not read the counters.
    var isWatching: Bool { state.withLock { $0.counters != nil } }

    /// Stops telling `observer`.
    package func unregister(_ observer: any TableObserver) {
        state.withLock { _ = $0.observers.removeValue(forKey: ObjectIdentifier(observer)) }
    }

    /// Runs `work` on the tracker's queue, after any pass in progress, never while a pass or
    /// another piece of enqueued work runs.
    package func enqueue(_ work: @escaping @Sendable () -> Void) {
        queue.async { [passLock] in
            passLock.lock()
            defer { passLock.unlock() }
            work()
        }
    }

    /// How many times a file event or the periodic check had the counters read (for tests).
    package var externalReadCount: Int { state.withLock { $0.externalReads } }

    /// The WAL index's change counter now, or nil when it cannot be read. `Database` reads it
    /// inside a write transaction (which holds the write lock) to learn the value its commit
    /// will leave.
    func walChangeCounter() -> UInt32? {
        walIndex?.changeCounter()
    }

    /// Called by `Database.write` after a commit that changed rows, with the counters read
    /// inside the transaction (nil when the database keeps none) and, when known, the WAL
    /// index's change counter as the commit left it. The pass runs on the tracker's queue,
    /// merged with any other commit not yet taken: never on the committing thread, so a write
    /// returns as soon as it is committed, whatever its observers cost.
    func didCommit(counters: [String: Int64]?, walChange: UInt32? = nil) {
        let claimed = state.withLock { state -> Bool in
            guard state.counters != nil else { return false }  // nobody observes yet
            if let counters {
                state.pending.snapshot = (state.pending.snapshot ?? [:]).merging(counters, uniquingKeysWith: max)
            } else {
                state.pending.unknown = true
            }
            // The counters of this commit include every commit before it. Commits of this
            // process can report out of order (each reports after releasing the writer): keep
            // the latest (wrapping comparison).
            if let walChange, state.ownCommitChange.map({ Int32(bitPattern: walChange &- $0) > 0 }) ?? true {
                state.ownCommitChange = walChange
            }
            guard !state.scheduled else { return false }  // a pass on the queue will take it
            state.scheduled = true
            return true
        }
        guard claimed else { return }
        queue.async { self.runPass() }
    }

    /// Called by `Database` before it starts a write transaction on its writer.
    func willWrite() {
        ownWrites.add(1, ordering: .relaxed)
    }

    /// Called by `Database` once a write transaction begun after `willWrite()` has ended.
    func didEndWrite() {
        ownWritesEnded.add(1, ordering: .relaxed)
    }

    /// How many file events were settled on the watcher's thread, without a pass (for tests).
    package var eventsWithoutPassCount: Int { state.withLock { $0.eventsWithoutPass } }

    /// Called by the file watcher when the database or WAL file changed.
    func externalChange() {
        if fileEventIsOwnCommit() { return }
        schedule {
            $0.external = true
            $0.externalAttempt = 0
        }
    }

    /// True when a file event can only be this process's own commit (or a checkpoint), so that
    /// no pass is needed, not even a hop to the tracker's queue: a write of this process's
    /// writer started or ended since the last look (it explains the event); the file is still
    /// the one opened; no other process holds the write lock (none is half done); and the WAL
    /// index's change counter is where this process's latest commit left it (nothing was
    /// committed since; that commit handed its counters over itself). Checked on the
    /// watcher's thread, in a few system calls; any doubt leaves the event to a pass.
    private func fileEventIsOwnCommit() -> Bool {
        guard let path, let walIndex, let opened = identity.withLock({ $0 }) else { return false }
        let writes = (started: ownWrites.load(ordering: .relaxed), ended: ownWritesEnded.load(ordering: .relaxed))
        let (explained, own) = state.withLock { ($0.ownWritesAtLastLook != writes, $0.ownCommitChange) }
        guard explained, let own, terminalFailure == nil, FileIdentity(path: path) == opened,
            walIndex.writeLock() == .free, walIndex.changeCounter() == own
        else { return false }
        state.withLock { state in
            state.ownWritesAtLastLook = writes
            state.eventsWithoutPass += 1
        }
        return true
    }

    /// Delays before looking again at an external change that showed no moved counter, while
    /// a commit may still be under way (see `runPass`).
    static let followUps: [DispatchTimeInterval] = [.milliseconds(2), .milliseconds(10), .milliseconds(50)]

    func stop() {
        let (watcher, timer) = state.withLock { state in
            defer {
                state.watcher = nil
                state.safetyTimer = nil
                state.stopped = true
            }
            return (state.watcher, state.safetyTimer)
        }
        watcher?.stop()
        timer?.cancel()
        versionConnection.withLock { state in
            state.connection?.close()
            state.connection = nil
        }
    }

    /// The observers still alive among `registrations`, loaded outside the lock; drops the
    /// dead ones from the state (by registration, so a new observer at a reused address stays).
    func liveObservers(_ registrations: [ObjectIdentifier: WeakObserver]) -> [any TableObserver] {
        var alive: [any TableObserver] = []
        var dead: [(ObjectIdentifier, UInt64)] = []
        for (id, box) in registrations {
            if let observer = box.observer {
                alive.append(observer)
            } else {
                dead.append((id, box.registration))
            }
        }
        if !dead.isEmpty {
            state.withLock { state in
                for (id, registration) in dead where state.observers[id]?.registration == registration {
                    state.observers[id] = nil
                }
            }
        }
        return alive
    }

    func schedule(_ update: (inout Pending) -> Void) {
        let start = state.withLock { state -> Bool in
            guard state.counters != nil else { return false }  // nobody observes yet
            update(&state.pending)
            guard !state.scheduled else { return false }
            state.scheduled = true
            return true
        }
        if start { queue.async { self.runPass() } }
    }
}
