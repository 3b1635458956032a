#if PostgreSQL
    internal import ShelfStore
    internal import Synchronization

    /// A `ChangeListener` observer that calls one closure: after every read of the log that
    /// brought changes of its tables (or may have missed some), and when the listening
    /// connection comes back or is lost. The listener holds it weakly; releasing it ends it.
    final class ChangeWatch: ChangeObserver {
        private let listener: ChangeListener
        private let onChange: @Sendable () -> Void
        private let registration = Mutex<UInt64?>(nil)

        init(tables: Set<String>, listener: ChangeListener, _ onChange: @escaping @Sendable () -> Void) {
            self.listener = listener
            self.onChange = onChange
            let key = listener.register(self, tables: tables)
            registration.withLock { $0 = key }
        }

        deinit {
            if let key = registration.withLock({ $0 }) { listener.unregister(key) }
        }

        func tablesDidChange() { onChange() }

        func listenerDidReconnect(changed: Bool) { onChange() }

        /// The next read fails (or succeeds, when the pool still reaches the server): either way
        /// the watcher reads.
        func listenerWasLost(_ error: StoreError) { onChange() }

        func stop() { onChange() }
    }
#endif
