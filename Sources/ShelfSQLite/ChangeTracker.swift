internal import Dispatch
internal import Foundation
internal import Synchronization

/// Something that depends on tables and wants to know when a commit changed one of them.
package protocol TableObserver: AnyObject, Sendable {
    /// The tables it reads, or nil when not known yet (then every change concerns it).
    var observedTables: Set<String>? { get }
    /// Called on the tracker's queue, serially, after a commit changed an observed table.
    func tablesDidChange()
}

/// Learns which tables each commit changed, in this process and in others, and tells the
/// `TableObserver`s that read them.
///
/// **How it knows.** The schema keeps per-table counters in `shelf_changes`, bumped by
/// triggers on every row change (see `Migrations/0002_change_counters.sql`). A commit made
/// through this `Database` reads the counters inside its transaction, just before COMMIT;
/// a commit by any other connection or process is noticed through inotify on the database
/// and WAL files, after which the counters are read on a reader. Either way the changed
/// tables are the counters that moved, so one mechanism covers both, a rolled-back
/// transaction moves nothing, and a write to a table without counters wakes no observer.
/// Without a `shelf_changes` table every commit concerns every observer.
///
/// **Coalescing.** Work runs on one serial queue. Commits that arrive while a pass is
/// running are merged into the next pass, so a burst of commits costs one re-run per
/// observer, never a queue of stale ones. Idle, it uses no CPU: the file watcher blocks in
/// `poll(2)`.
package final class ChangeTracker: Sendable {
    private struct State {
        var observers: [ObjectIdentifier: WeakObserver] = [:]
        /// The counters as of the last pass; nil until the first observer registers.
        var counters: [String: Int64]?
        var pending = Pending()
        var scheduled = false
        var watcher: FileWatcher?
    }

    private struct Pending {
        var snapshot: [String: Int64]?
        var unknown = false
        var external = false
        /// How many times this external change was checked already without finding a moved
        /// counter (the writer may not have finished its commit at the first look).
        var externalAttempt = 0
        var isEmpty: Bool { snapshot == nil && !unknown && !external }
    }

    private struct WeakObserver {
        weak var observer: (any TableObserver)?
    }

    private struct WeakDatabase {
        weak var database: Database?
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "shelf.change-tracker")
    private let path: String?
    /// The database this tracker belongs to; weak, since the database owns the tracker.
    private let owner = Mutex(WeakDatabase())

    init(path: String?) {
        self.path = path
    }

    func attach(to database: Database) {
        owner.withLock { $0.database = database }
    }

    /// The counters as a reader sees them now; nil when there are none (or no database).
    private func readCounters() -> [String: Int64]? {
        guard let database = owner.withLock({ $0.database }) else { return nil }
        return try? database.read { try Self.counters(on: $0) }
    }

    /// The counters on `connection`, or nil when the database keeps none.
    static func counters(on connection: Connection) throws -> [String: Int64]? {
        let statement: Statement
        do {
            statement = try connection.cachedStatement(countersSQL)
        } catch DatabaseError.error {
            return nil  // no shelf_changes table
        }
        var counters: [String: Int64] = [:]
        try statement.forEachRow { row in
            counters[try row.string(0)] = try row.int64(1)
        }
        return counters
    }

    /// The SQL that reads the counters; nil result (no such table) means "unknown".
    static let countersSQL = "SELECT table_name, counter FROM shelf_changes"

    /// Starts telling `observer` about changes to its tables. Held weakly; a released
    /// observer is dropped on its own.
    package func register(_ observer: any TableObserver) {
        let needsStart = state.withLock { state -> Bool in
            state.observers[ObjectIdentifier(observer)] = WeakObserver(observer: observer)
            return state.counters == nil
        }
        if needsStart {
            // Baseline counters and the file watcher, once. Read on the calling thread, not
            // on the tracker's queue: a live query may be created from inside an observer
            // that the queue is running (waiting for the queue there would deadlock).
            let counters = readCounters() ?? [:]
            state.withLock { state in
                if state.counters == nil { state.counters = counters }
                if state.watcher == nil, let path {
                    state.watcher = FileWatcher(databasePath: path) { [weak self] in self?.externalChange() }
                }
            }
        }
    }

    /// True once an observer has registered: until then commits need not read the counters.
    var isWatching: Bool { state.withLock { $0.counters != nil } }

    /// Stops telling `observer`.
    package func unregister(_ observer: any TableObserver) {
        state.withLock { _ = $0.observers.removeValue(forKey: ObjectIdentifier(observer)) }
    }

    /// Runs `work` on the tracker's queue, after any pass in progress.
    package func enqueue(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    /// Called by `Database.write` after a commit that changed rows, with the counters read
    /// inside the transaction (nil when the database keeps none).
    func didCommit(counters: [String: Int64]?) {
        schedule { pending in
            if let counters {
                pending.snapshot = (pending.snapshot ?? [:]).merging(counters, uniquingKeysWith: max)
            } else {
                pending.unknown = true
            }
        }
    }

    /// Called by the file watcher when the database or WAL file changed.
    func externalChange() {
        schedule {
            $0.external = true
            $0.externalAttempt = 0
        }
    }

    /// Delays before looking again at an external change that showed no moved counter.
    private static let followUps: [DispatchTimeInterval] = [.milliseconds(10), .milliseconds(50)]

    func stop() {
        let watcher = state.withLock { state in
            defer { state.watcher = nil }
            return state.watcher
        }
        watcher?.stop()
    }

    private func schedule(_ update: (inout Pending) -> Void) {
        let start = state.withLock { state -> Bool in
            guard state.counters != nil else { return false }  // nobody observes yet
            update(&state.pending)
            guard !state.scheduled else { return false }
            state.scheduled = true
            return true
        }
        if start { queue.async { self.runPass() } }
    }

    /// One pass: work out the changed tables, then tell the observers that read them.
    private func runPass() {
        let pending = state.withLock { state in
            defer {
                state.pending = Pending()
                state.scheduled = false
            }
            return state.pending
        }
        guard !pending.isEmpty else { return }
        var snapshot = pending.snapshot
        var unknown = pending.unknown
        if pending.external {
            if let now = readCounters() {
                snapshot = (snapshot ?? [:]).merging(now, uniquingKeysWith: max)
            } else {
                unknown = true
            }
        }
        let (changed, observers) = state.withLock { state -> (Set<String>?, [any TableObserver]) in
            var changed: Set<String>? = []
            if let snapshot, let previous = state.counters {
                for (table, counter) in snapshot where counter > previous[table, default: 0] {
                    changed?.insert(table)
                }
                state.counters = previous.merging(snapshot, uniquingKeysWith: max)
            }
            if unknown { changed = nil }
            state.observers = state.observers.filter { $0.value.observer != nil }
            return (changed, state.observers.values.compactMap(\.observer))
        }
        if changed?.isEmpty == true {
            if pending.external, pending.externalAttempt < Self.followUps.count {
                let attempt = pending.externalAttempt + 1
                queue.asyncAfter(deadline: .now() + Self.followUps[attempt - 1]) { [weak self] in
                    self?.schedule {
                        $0.external = true
                        $0.externalAttempt = max($0.externalAttempt, attempt)
                    }
                }
            }
            return
        }
        for observer in observers {
            guard let changed, let tables = observer.observedTables else {
                observer.tablesDidChange()
                continue
            }
            if !tables.isDisjoint(with: changed) { observer.tablesDidChange() }
        }
    }
}
