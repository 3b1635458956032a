#if Server
    internal import NIOCore
    internal import ShelfStore
    internal import Synchronization

    /// The bodies of recent `GET /api/items` answers, by the request's exact query string, each
    /// valid only at the store's content version it was read at (`Store.contentVersion()`).
    ///
    /// Why: a page costs reads of the items, their count, the type check of their values and
    /// their owners, then its JSON; while nothing is written, every client asking for the same
    /// page got the same bytes at that cost again (issue 24's `wrk` run: the same page of 50,
    /// thousands of times a second). A hit costs one read of the version instead.
    ///
    /// Never stale: the version is read BEFORE the page. The page then reflects the store at
    /// that version or later; it is served again only to a request whose own version read
    /// (before its answer) finds the same version, and the version moves on every commit that
    /// changes items, users or the schema (any process's: the change log's triggers), so the
    /// store is then exactly as it was when the version was first read, and no write the
    /// page could have missed has happened. Bounded: entries of older versions are dropped when
    /// a newer one is stored, at most `capacity` entries and `byteBudget` bytes are kept (the
    /// oldest go first), and no body larger than `byteBudget / 8` is kept.
    final class ItemPageCache: Sendable {
        private struct Entry {
            let version: StoreContentVersion
            let body: ByteBuffer
            let stamp: UInt64
        }

        private struct State {
            var entries: [String: Entry] = [:]
            var bytes = 0
            var clock: UInt64 = 0
        }

        static let capacity = 128
        static let byteBudget = 8 << 20

        private let state = Mutex(State())

        /// The body stored for `query` at `version`, if any.
        func body(for query: String, at version: StoreContentVersion) -> ByteBuffer? {
            state.withLock { state in
                guard let entry = state.entries[query], entry.version == version else { return nil }
                return entry.body
            }
        }

        /// Keeps `body`, the answer to `query` read at `version`.
        func store(_ body: ByteBuffer, for query: String, at version: StoreContentVersion) {
            guard body.readableBytes <= Self.byteBudget / 8 else { return }
            // Dropped outside the lock: a body's storage dies there, not while others wait.
            let dropped = state.withLock { state -> [Entry] in
                var dropped: [Entry] = []
                // A newer version makes every entry of another one unservable.
                for (key, entry) in state.entries where entry.version != version {
                    dropped.append(entry)
                    state.entries[key] = nil
                }
                if let old = state.entries.removeValue(forKey: query) { dropped.append(old) }
                state.bytes = state.entries.values.reduce(0) { $0 + $1.body.readableBytes }
                while state.entries.count >= Self.capacity || state.bytes + body.readableBytes > Self.byteBudget,
                    let oldest = state.entries.min(by: { $0.value.stamp < $1.value.stamp })
                {
                    state.entries[oldest.key] = nil
                    state.bytes -= oldest.value.body.readableBytes
                    dropped.append(oldest.value)
                }
                state.clock += 1
                state.entries[query] = Entry(version: version, body: body, stamp: state.clock)
                state.bytes += body.readableBytes
                return dropped
            }
            withExtendedLifetime(dropped) {}
        }
    }
#endif
