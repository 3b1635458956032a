internal import Dispatch
internal import Foundation
internal import Logging
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// The checks that do not rely on file events: the once-a-second `data_version` and file
/// identity check, and the identity check every write makes.
extension ChangeTracker {
    /// The periodic cross-check, on the tracker's queue: a commit whose file event was
    /// missed (inotify coalesces, and a WAL reset followed by a commit of the same size looks
    /// like nothing happened) still moves `PRAGMA data_version`; and a file deleted or
    /// replaced under the process is found even if its event was lost.
    func safetyCheck() {
        guard !isStopped else { return }
        // No observer left (the released ones pruned first): stop until the next registers,
        // so a process with a store but no live query does no periodic work.
        let alive = liveObservers(state.withLock { $0.observers })
        if alive.isEmpty {
            let idle = state.withLock { state -> (any DispatchSourceTimer)? in
                guard state.observers.isEmpty else { return nil }
                defer { state.safetyTimer = nil }
                return state.safetyTimer
            }
            if let idle {
                idle.cancel()
                return
            }
        }
        if checkIdentity() { return }
        guard let path else { return }
        if dataVersionMoved(path) {
            // Commits by this process move it too; those were handled already, so look once,
            // without the follow-ups an inotify event gets.
            schedule {
                $0.external = true
                $0.externalAttempt = Self.followUps.count
            }
        }
    }

    /// True when `PRAGMA data_version` on the tracker's own connection differs from the last
    /// look: some other connection committed since. The first look takes the baseline.
    @discardableResult
    func dataVersionMoved(_ path: String) -> Bool {
        versionConnection.withLock { state -> Bool in
            if state.connection == nil {
                state.connection = try? Connection(path: path, readOnly: true)
            }
            guard let connection = state.connection,
                let version = try? connection.fetchOne("PRAGMA data_version", row: { try $0.int64(0) })
            else { return false }
            defer { state.version = version }
            return state.version != nil && state.version != version
        }
    }

    /// Compares the file at the path with the one opened. When it is gone or another file,
    /// records the terminal failure, tells every observer (on the tracker's queue), has the
    /// database save and empty its WAL, and returns true. Callable from any thread.
    @discardableResult
    func checkIdentity() -> Bool {
        guard let path, let identity = identity.withLock({ $0 }), terminalFailure == nil else {
            return terminalFailure != nil
        }
        let now = FileIdentity(path: path)
        guard now != identity else { return false }
        let what = now == nil ? "was deleted or moved away" : "was replaced by another file (moved or copied over it)"
        let failure = DatabaseError(
            extendedCode: DatabaseError.databaseMoved,
            message: "the database file \(path) \(what) while this process had it open; its data can no longer "
                + "be shown or changed here (commits made here were written into the old file). Quit and start "
                + "again to open the file now at that path")
        let registrations = state.withLock { state -> [ObjectIdentifier: WeakObserver]? in
            guard state.terminalFailure == nil else { return nil }  // another thread got here first
            state.terminalFailure = failure
            return state.observers
        }
        guard let registrations else { return true }
        Diagnostics.logger.debug("database file \(what); live queries stop", metadata: ["path": "\(path)"])
        enqueue { [self] in
            for observer in liveObservers(registrations) { observer.databaseDidFail(failure) }
        }
        // The -wal at the path is still this process's: a process opening the new file would
        // read its frames as if they were the new file's pages. Checkpoint them into the old
        // file (where they belong: a moved file is then complete) and truncate the WAL to
        // nothing, off this thread (which may hold the writer). Dispatch, not `BlockingWork`:
        // this runs from a synchronous check (a write's, a pass's) with no task to await it.
        // Best effort, and nothing is lost when it fails: the failure that matters (the file
        // moved) was recorded above and is what every later call throws.
        let database = owner.withLock { $0.database }
        DispatchQueue.global().async { database?.emptyWALAfterMove() }
        return true
    }

    /// The failure that stops all work when the file was deleted or replaced; checks the
    /// file's identity now (one `stat`).
    package func fileFailure() -> DatabaseError? {
        checkIdentity()
        return terminalFailure
    }
}
