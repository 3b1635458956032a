internal import Dispatch
internal import Foundation
internal import Logging
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// The pass: what changed since the last look, and which observers to tell.
extension ChangeTracker {
    /// One pass on the tracker's queue, once no other pass or enqueued work runs.
    func runPass() {
        passLock.lock()
        defer { passLock.unlock() }
        runPassHoldingLock()
    }

    /// One pass: work out the changed tables, then tell the observers that read them. The
    /// caller holds `passLock`.
    func runPassHoldingLock() {
        let (pending, explained) = state.withLock { state in
            defer {
                state.pending = Pending()
                state.scheduled = false
            }
            // A write by this process's writer that started, or ended, since the last look
            // explains a file event (its commit wrote the WAL and hands its counters over
            // itself, read under the write lock, after any commit that another process had
            // under way). Ended counts too: the events of one commit can straddle two looks.
            let writes = (started: ownWrites.load(ordering: .relaxed), ended: ownWritesEnded.load(ordering: .relaxed))
            let explained = writes != state.ownWritesAtLastLook
            if state.pending.external { state.ownWritesAtLastLook = writes }
            return (state.pending, explained)
        }
        guard !pending.isEmpty else { return }
        if pending.external, checkIdentity() { return }
        var snapshot = pending.snapshot
        var unknown = pending.unknown
        // Who holds the write lock, asked BEFORE the counters are read: a commit publishes its
        // frames before it releases the lock, so when no other process holds it now, every
        // commit whose writes caused the event is visible to the read that follows.
        var writeLock = WALIndexFile.WriteLock.free
        if pending.external {
            writeLock = walIndex?.writeLock() ?? .unknown
            // Nothing committed since this process's latest tracked commit (no other process
            // holds the write lock, so none is half done, and the WAL index's change counter,
            // which every commit moves, is where that commit left it): its counters, handed
            // over by the commit itself, are the latest. The file event was that commit's (or
            // a checkpoint's), and reading the counters again would find nothing new.
            let own = state.withLock { $0.ownCommitChange }
            if writeLock == .free, let own, walIndex?.changeCounter() == own {
                // Nothing to read.
            } else if let now = readCounters() {
                state.withLock { $0.externalReads += 1 }
                snapshot = (snapshot ?? [:]).merging(now, uniquingKeysWith: max)
            } else {
                state.withLock { $0.externalReads += 1 }
                unknown = true
            }
        }
        let (changed, registrations) = state.withLock { state -> (Set<String>?, [ObjectIdentifier: WeakObserver]) in
            var changed: Set<String>? = []
            if let snapshot, let previous = state.counters {
                for (table, counter) in snapshot where counter > previous[table, default: 0] {
                    changed?.insert(table)
                }
                state.counters = previous.merging(snapshot, uniquingKeysWith: max)
            }
            if unknown || changed?.contains(Self.schemaKey) == true { changed = nil }
            return (changed, state.observers)  // weak boxes copied, none loaded
        }
        let observers = liveObservers(registrations)
        if changed?.isEmpty != true {
            Diagnostics.logger.debug(
                "commit seen: \(changed.map { $0.sorted().joined(separator: ", ") } ?? "any table") changed",
                metadata: [
                    "by": "\(pending.external ? "a file event" : "this process")",
                    "liveQueries": "\(observers.count)",
                ])
        }
        if changed?.isEmpty == true {
            // Nothing new. Look again shortly only if a commit may be under way: another
            // process holds the write lock (its frames are written, its commit not yet
            // visible), the lock cannot be seen, or no commit of this process explains the
            // event (a second `Database` on the file in this process, whose locks `F_GETLK`
            // cannot show). The file event of this process's own commit needs no second look:
            // that commit handed its counters over itself.
            let underWay: Bool
            switch writeLock {
            case .heldElsewhere, .unknown: underWay = true
            case .free: underWay = !explained
            }
            if pending.external, underWay, pending.externalAttempt < Self.followUps.count {
                state.withLock { $0.followUps += 1 }
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
