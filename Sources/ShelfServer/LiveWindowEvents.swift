#if Server
    internal import NIOCore
    internal import ShelfReactive
    internal import ShelfStore
    internal import Synchronization

    /// The `event: window` of each live window, encoded once for every stream that watches its
    /// query, off the threads tasks share.
    ///
    /// Streams of one query get the same window from the store at once; each encoded it for
    /// itself before (the hostile tester's thirty streams of a 1,000-item window with long notes
    /// encoded it thirty times over, on the cooperative pool, which `/healthz` then waited on for
    /// minutes). Now the first stream to ask starts the encoding on a thread of its own
    /// (`BlockingWork`) and every stream of that query with that window and position awaits the
    /// same bytes (a `ByteBuffer`, whose storage the writes share rather than copy).
    ///
    /// One window per query is kept, the newest asked for, and only while a stream of the
    /// query is open (`open(_:)` / `close(_:)`), so memory is one encoded window per distinct
    /// live query.
    final class LiveWindowEvents: Sendable {
        /// What a stream sends for a window: the window's event, or an `event: error` in its
        /// place (`isWindow` false: the window holds a value of the wrong type).
        struct Event: Sendable {
            let bytes: ByteBuffer
            let isWindow: Bool
        }

        private struct Encoding {
            let window: ItemWindow
            let position: Int64?
            let bytes: Task<Event, any Error>
        }

        private struct Entry {
            var streams = 0
            var latest: Encoding?
        }

        private let entries = Mutex<[String: Entry]>([:])

        /// Counts a stream of `query` (its key) as open.
        func open(_ query: String) {
            entries.withLock { $0[query, default: Entry()].streams += 1 }
        }

        /// Counts a stream of `query` as closed; the last one lets go of its encoded window.
        func close(_ query: String) {
            let dropped = entries.withLock { entries -> Encoding? in
                guard var entry = entries[query] else { return nil }
                entry.streams -= 1
                guard entry.streams <= 0 else {
                    entries[query] = entry
                    return nil
                }
                entries[query] = nil
                return entry.latest
            }
            // An encoding no stream waits for any more is not finished for nothing.
            dropped?.bytes.cancel()
        }

        /// The event for `window` at `position` of `query`: the one already encoded (or being
        /// encoded) for that window and position, else `encode`'s, started now and shared with
        /// the streams that ask next. Returns nil as soon as `mailbox` ends (its client went,
        /// the server shuts down, its token was revoked): a stream never waits for an encoding
        /// it will not send; it learns why from `mailbox.next()`.
        ///
        /// An encoding that failed is not kept: the next stream to ask for the window encodes it
        /// again (a store error is no verdict on the window for good).
        /// - Throws: what `encode` throws.
        func event<Value>(
            for window: ItemWindow, at position: Int64?, of query: String, unless mailbox: LiveMailbox<Value>,
            encode: @escaping @Sendable () async throws -> Event
        ) async throws -> Event? {
            let bytes = entries.withLock { entries -> Task<Event, any Error> in
                // The same window from the store shares its items' storage: `==` is then
                // immediate (Array compares its buffer's identity first).
                if let latest = entries[query]?.latest, latest.position == position, latest.window == window {
                    return latest.bytes
                }
                // Awaited below, and by each stream of the query that asks for this window.
                let bytes = Task { try await encode() }
                if entries[query] != nil {
                    entries[query]?.latest = Encoding(window: window, position: position, bytes: bytes)
                }
                return bytes
            }
            let outcome = Mutex<CheckedContinuation<Event?, any Error>?>(nil)
            let finish: @Sendable (Result<Event?, any Error>) -> Void = { result in
                outcome.withLock { $0.take() }?.resume(with: result)
            }
            defer { mailbox.whenEnded(nil) }
            let event = try await withCheckedThrowingContinuation { continuation in
                outcome.withLock { $0 = continuation }
                mailbox.whenEnded { finish(.success(nil)) }
                // Hands the encoding's outcome to this stream (whichever of it and the mailbox's
                // end comes first); it ends with the encoding, which the last stream of the
                // query to close cancels.
                Task {
                    let result = await bytes.result
                    if case .failure = result { forget(bytes, of: query) }
                    finish(result.map { $0 })
                }
            }
            return event
        }

        /// Forgets `bytes` if it is still `query`'s latest encoding.
        private func forget(_ bytes: Task<Event, any Error>, of query: String) {
            entries.withLock { entries in
                if entries[query]?.latest?.bytes == bytes { entries[query]?.latest = nil }
            }
        }
    }

    extension ShelfAPI {
        /// The bytes of `window`'s event at `position`: its `id:` line (when it has a position),
        /// `event: window` and the data `{"count", "items", "seq"}`. Owners' emails are read here
        /// (once per owner); the JSON is built and encoded on a thread of its own. A window
        /// holding a value another program stored with the wrong type
        /// (`Store.refuseMistypedItems`) is an `event: error` naming the row instead, as the
        /// list refuses it: one check per window, shared by the query's streams.
        func encodeWindowEvent(_ window: ItemWindow, at position: Int64?) async throws -> LiveWindowEvents.Event {
            do {
                try await store.refuseMistypedItems(window.items.map(\.id))
            } catch let error as StoreError {
                return LiveWindowEvents.Event(bytes: Self.errorEvent(error), isWindow: false)
            }
            var emails: [User.ID: String?] = [:]
            for item in window.items where emails[item.userID] == nil {
                emails[item.userID] = .some(try await store.users.user(id: item.userID)?.email)
            }
            let owners = emails
            let bytes = try await BlockingWork.run { cancellation in
                // `{"count":N,"items":[…],"seq":S}`, as `JSONValue.object(…).encoded()` writes it
                // (keys sorted), an item at a time so that a cancelled encoding stops between them.
                var bytes = Array(((position.map { "id: \($0)\n" } ?? "") + "event: window\ndata: ").utf8)
                bytes += Array("{\"count\":\(window.totalCount),\"items\":[".utf8)
                for (index, item) in window.items.enumerated() {
                    try cancellation.check()
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    JSONShapes.item(item, ownerEmail: owners[item.userID] ?? nil).append(to: &bytes)
                }
                bytes += Array("],\"seq\":\(position.map(String.init) ?? "null")}\n\n".utf8)
                return ByteBuffer(bytes: bytes)
            }
            return LiveWindowEvents.Event(bytes: bytes, isWindow: true)
        }
    }
#endif
