package import ShelfReactive
internal import Synchronization

/// One shared live window: the latest result of one `LiveWindowKey`, its position in the
/// change log, and the properties every live value of that key reads.
///
/// The properties retain the entry; the registry holds it weakly, so the entry (and its
/// upkeep) ends when the last live value of its key is released.
package final class LiveWindowEntry: Sendable {
    package let judge: LiveWindowJudge
    private struct State {
        var window: ItemWindow
        var position: Int64
        var failed = false
        /// The window last published with its position (nil until one is settled).
        var settledWindow: ItemWindow?
        var snapshotFailed = false
        var wantsSnapshots = false
    }
    private let state: Mutex<State>
    private let windows: MutableProperty<LiveResult<ItemWindow>>
    private let snapshots: MutableProperty<LiveResult<LiveSnapshot<ItemWindow>>>
    /// Kept alive as long as the entry is (a backend's upkeep shared by its entries, such as
    /// its subscription to changes).
    private let upkeep: (any Sendable)?

    /// An entry holding `window`, read at log position `position`; it retains `upkeep` (if
    /// any) for as long as it lives. `settled`: whether `window` is exactly what a fresh read
    /// returns at `position` (see `update`); until a settled window is published, the snapshots
    /// show `window` without a position.
    package init(
        key: LiveWindowKey, window: ItemWindow, position: Int64, settled: Bool = true,
        retaining upkeep: (any Sendable)? = nil
    ) {
        self.upkeep = upkeep
        judge = LiveWindowJudge(key)
        var initial = State(window: window, position: position)
        if settled { initial.settledWindow = window }
        state = Mutex(initial)
        windows = MutableProperty(.success(window))
        snapshots = MutableProperty(
            .success(LiveSnapshot(value: window, position: settled ? LivePosition(sequence: position) : nil)))
    }

    package var key: LiveWindowKey { judge.key }

    /// The window as of `position`.
    package var window: ItemWindow { state.withLock { $0.window } }

    /// The log position the window is exact at.
    package var position: Int64 { state.withLock { $0.position } }

    /// Whether the last thing published was a failure.
    package var isFailing: Bool { state.withLock { $0.failed } }

    /// The window, live (retains this entry).
    package var windowProperty: Property<LiveResult<ItemWindow>> { Property(windows, retaining: self) }

    /// The window with its position, live (retains this entry).
    package var snapshotProperty: Property<LiveResult<LiveSnapshot<ItemWindow>>> {
        Property(snapshots, retaining: self)
    }

    /// Records that the window is `window` at `position` (later than the current one; an
    /// older position is ignored) and publishes it when it differs from the last published
    /// window (or after a failure). Returns whether it published. Call from one pass at a
    /// time: properties deliver on the calling thread.
    ///
    /// `settled`: whether every change up to `position` is in `window` (none still to commit
    /// below it, as commits out of order can leave on PostgreSQL). Only a settled window is
    /// published with its position (`snapshotProperty`); an unsettled one reaches the plain
    /// windows only, and its snapshot follows once a settled update brings it.
    @discardableResult
    package func update(_ window: ItemWindow, position: Int64, settled: Bool = true) -> Bool {
        let (publish, snapshot) = state.withLock { state -> (Bool, Bool) in
            guard position >= state.position else { return (false, false) }
            state.position = position
            let snapshot = settled && (state.settledWindow != window || state.snapshotFailed)
            if snapshot {
                state.settledWindow = window
                state.snapshotFailed = false
            }
            guard window != state.window || state.failed else { return (false, snapshot) }
            state.window = window
            state.failed = false
            return (true, snapshot)
        }
        if publish { windows.value = .success(window) }
        if snapshot {
            snapshots.value = .success(LiveSnapshot(value: window, position: LivePosition(sequence: position)))
        }
        return publish
    }

    /// Whether the snapshots show the current window with its position (`update`'s `settled`).
    package var isSettled: Bool {
        state.withLock { $0.settledWindow == $0.window && !$0.snapshotFailed && !$0.failed }
    }

    /// Whether something reads this entry's snapshots (`wantSnapshots`): a backend whose
    /// updates may be unsettled then reads until they are.
    package var wantsSnapshots: Bool { state.withLock { $0.wantsSnapshots } }

    /// Marks that a caller reads `snapshotProperty`.
    package func wantSnapshots() { state.withLock { $0.wantsSnapshots = true } }

    /// Publishes `error` (once while failures go on); the window and position stay as they
    /// were, so the next successful read is published even when equal.
    package func fail(_ error: StoreError) {
        let publish = state.withLock { state -> Bool in
            defer {
                state.failed = true
                state.snapshotFailed = true
            }
            return !state.failed
        }
        guard publish else { return }
        windows.value = .failure(error)
        snapshots.value = .failure(error)
    }
}

/// The shared live windows of one store, by key. Thread-safe.
package final class LiveWindowRegistry: Sendable {
    /// Held weakly; loaded only outside the lock (a last reference dying inside it would run
    /// the entry's deinit there).
    private struct Weak {
        weak var entry: LiveWindowEntry?
    }
    private let entries = Mutex<[LiveWindowKey: Weak]>([:])

    package init() {}

    /// The live entry of `key`, if one exists.
    package func entry(for key: LiveWindowKey) -> LiveWindowEntry? {
        let box = entries.withLock { $0[key] }
        return box?.entry
    }

    /// Adds `entry` unless a live entry of its key exists; returns the one to use.
    package func insert(_ entry: LiveWindowEntry) -> LiveWindowEntry {
        // The existing entry, if any, leaves the lock as a strong reference (never released
        // inside it); a dead box under the key is replaced and released after the lock.
        let (result, replaced) = entries.withLock { entries -> (LiveWindowEntry, Weak?) in
            if let existing = entries[entry.key]?.entry { return (existing, nil) }
            let old = entries[entry.key]
            entries[entry.key] = Weak(entry: entry)
            return (entry, old)
        }
        withExtendedLifetime(replaced) {}
        return result
    }

    /// Every live entry; dead ones are dropped.
    package func liveEntries() -> [LiveWindowEntry] {
        let boxes = entries.withLock { $0 }
        var alive: [LiveWindowEntry] = []
        var dead: [LiveWindowKey] = []
        alive.reserveCapacity(boxes.count)
        for (key, box) in boxes {
            if let entry = box.entry { alive.append(entry) } else { dead.append(key) }
        }
        if !dead.isEmpty {
            entries.withLock { entries in
                for key in dead where entries[key].map({ $0.entry == nil }) ?? false {
                    entries[key] = nil
                }
            }
        }
        return alive
    }

    /// How many keys are registered (dead ones included until the next `liveEntries`).
    package var count: Int { entries.withLock { $0.count } }
}
