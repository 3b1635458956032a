#if Server
    internal import Foundation
    internal import NIOCore
    internal import NIOHTTPTypes
    internal import ShelfReactive
    internal import ShelfStore
    internal import Synchronization

    /// One live query's windows, encoded once and written to every stream of the query from
    /// that stream's own event loop (issue 24).
    ///
    /// A window of a query 1,000 streams watch used to wake 1,000 tasks on the cooperative pool,
    /// each of which started a task of its own to await the shared encoding, then hopped to its
    /// connection's event loop to write (20,000 windows/s to the shared clients of
    /// `shelf-benchmarks serve`: p99 441 ms). Now the query's one observer of the store's
    /// property hands each window to one task (`run`), which encodes it (`encode`, off the
    /// cooperative pool) and then hands the bytes to each event loop, newest only (`hand`):
    /// there every stream of the loop writes them (`LiveWindowStream.takeOnLoop`), with no task
    /// woken. A stream whose
    /// connection is unwritable keeps only the newest event and writes it once its last write
    /// has gone out (coalescing: a slow client costs one pending event, never a queue). A stream
    /// without a connection of its own (routes mounted in another application, whose context
    /// does not give the channel) gets the events through its mailbox and writes them from its
    /// task, as before.
    ///
    /// Every event carries a generation, so that a stream that joins while the query's newest
    /// window is being handed out never writes an older one after it; the newest event is kept
    /// for a stream that joins later (its first window). The fan-out lives while a stream of its
    /// query is open (`LiveWindowFanouts`); the last one to go stops it (its observer, and an
    /// encoding no one will send).
    final class LiveWindowFanout: Sendable {
        /// An encoded event for the query's streams.
        struct Event: Sendable {
            /// The bytes of the event (a window, or an `event: error` in its place).
            let bytes: ByteBuffer
            /// `bytes` as one HTTP/1.1 chunk (`SIZE\r\n…\r\n`, as NIOHTTP1 frames a body part),
            /// made once for the streams that write below the encoder (`LiveWindowStream`).
            let chunk: ByteBuffer
            /// False for an `event: error` written instead of a window: it moves no position.
            let isWindow: Bool
            /// The window's change-log position (its `id:`), nil for an error or a store with none.
            let position: Int64?
            /// When the store published the window (for the delivery histogram).
            let published: ContinuousClock.Instant
            /// Increases with each event of the fan-out.
            let generation: Int
            /// True for the store's last word (its file was replaced): the stream writes it and ends.
            let ends: Bool
        }

        /// The query's streams on one event loop (or those without a connection of their own).
        private struct LoopStreams {
            let loop: (any EventLoop)?
            /// The streams, each with its join number (`State.joins` when it joined).
            var members: [ObjectIdentifier: (stream: LiveWindowStream, joined: Int)] = [:]
            /// The newest event the loop's job has not taken yet (`hand`, `takeOnLoop`).
            var waiting: Event?
            /// While a job is scheduled on the loop: `State.joins` when it was. Only streams that
            /// joined by then are written to by it: a stream's response head is queued on its
            /// loop before the stream joins, so a job queued before the join could run before the
            /// head and write an event ahead of it.
            var jobAt: Int?
        }

        private struct State {
            /// The query's streams on each event loop (`ObjectIdentifier` of the loop), and those
            /// without a connection of their own (`nil` key).
            var streams: [ObjectIdentifier?: LoopStreams] = [:]
            /// Streams that have joined so far (every group's join numbers come from it).
            var joins = 0
            var count = 0
            var latest: Event?
            var generation = 0
            var stopped = false
            var token: Lifetime.Token?
            var task: Task<Void, Never>?
            /// The store's live window, kept while the fan-out runs.
            var property: Property<LiveResult<LiveSnapshot<ItemWindow>>>?
        }

        private let state = Mutex(State())
        private let windows = LiveMailbox<LiveResult<LiveSnapshot<ItemWindow>>>()
        let query: String

        init(query: String) { self.query = query }

        /// Adds `stream`; returns the newest event (the stream's first window), and how many
        /// streams the fan-out had before.
        fileprivate func add(_ stream: LiveWindowStream) -> (latest: Event?, before: Int) {
            state.withLock { state -> (Event?, Int) in
                let key = stream.loop.map { ObjectIdentifier($0) }
                state.joins += 1
                state.streams[key, default: LoopStreams(loop: stream.loop)].members[ObjectIdentifier(stream)] = (
                    stream, state.joins
                )
                state.count += 1
                return (state.latest, state.count - 1)
            }
        }

        /// Removes `stream`; returns how many streams are left.
        fileprivate func remove(_ stream: LiveWindowStream) -> Int {
            state.withLock { state -> Int in
                let key = stream.loop.map { ObjectIdentifier($0) }
                guard state.streams[key]?.members.removeValue(forKey: ObjectIdentifier(stream)) != nil else {
                    return state.count
                }
                if state.streams[key]?.members.isEmpty == true { state.streams[key] = nil }
                state.count -= 1
                return state.count
            }
        }

        /// Observes `property` and runs the encodings, until `stop()`.
        fileprivate func start(
            _ property: Property<LiveResult<LiveSnapshot<ItemWindow>>>,
            position: @escaping @Sendable (ItemWindow) async -> Int64?,
            encode: @escaping @Sendable (ItemWindow, Int64?) async throws -> ShelfAPI.WindowEvent
        ) {
            let token = Lifetime.Token()
            let windows = self.windows
            // Ends when `stop()` ends the mailbox; every error is handled in `run`.
            let task = Task { await self.run(position: position, encode: encode) }
            let stopped = state.withLock { state -> Bool in
                if !state.stopped { (state.token, state.task, state.property) = (token, task, property) }
                return state.stopped
            }
            if stopped {
                task.cancel()
                windows.end()
                return
            }
            property.observe(during: token.lifetime) { windows.post($0) }
        }

        /// Stops observing the store and cancels an encoding in progress.
        fileprivate func stop() {
            let (token, task, property) = state.withLock {
                state -> (Lifetime.Token?, Task<Void, Never>?, Property<LiveResult<LiveSnapshot<ItemWindow>>>?) in
                state.stopped = true
                defer { (state.token, state.task, state.property) = (nil, nil, nil) }
                return (state.token, state.task, state.property)
            }
            token?.end()
            // Released outside the lock (the store's entry may end with it).
            withExtendedLifetime(property) {}
            windows.end()
            task?.cancel()
        }

        /// Encodes each window the store publishes (the newest, when several came while one was
        /// encoded) and hands it out. An encoding that fails (the store did not answer the
        /// owners' emails) is tried again, 100 ms later doubling to 2 s, with the newest window.
        private func run(
            position: @Sendable (ItemWindow) async -> Int64?,
            encode: @Sendable (ItemWindow, Int64?) async throws -> ShelfAPI.WindowEvent
        ) async {
            while true {
                switch await windows.next() {
                case .end: return
                case .keepAlive, .unauthorized: continue
                case .value(.failure(let error), let published):
                    hand(
                        ShelfAPI.WindowEvent(bytes: ShelfAPI.errorEvent(error), isWindow: false), at: nil,
                        published: published, ends: error.code == .fileReplaced)
                case .value(.success(var snapshot), var published):
                    var delay = Duration.milliseconds(100)
                    encoding: while true {
                        let window = snapshot.value
                        var at = snapshot.position?.sequence
                        if at == nil { at = await position(window) }
                        do {
                            let event = try await encode(window, at)
                            hand(event, at: at, published: published, ends: false)
                            break encoding
                        } catch {
                            if Task.isCancelled || windows.hasEnded { return }
                            try? await Task.sleep(for: delay)
                            delay = min(delay * 2, .seconds(2))
                            if windows.hasEnded { return }
                            // A newer window replaces the one that failed; a failure of the store's
                            // own is handed out, and the next window waited for.
                            switch windows.takePending() {
                            case .some((.success(let newer), let time)): (snapshot, published) = (newer, time)
                            case .some((.failure(let error), let time)):
                                hand(
                                    ShelfAPI.WindowEvent(bytes: ShelfAPI.errorEvent(error), isWindow: false),
                                    at: nil, published: time, ends: error.code == .fileReplaced)
                                break encoding
                            case .none: break
                            }
                        }
                    }
                }
            }
        }

        /// Keeps `encoded` as the newest event and hands it to every stream: on each event loop,
        /// one job writes it to each of the loop's streams.
        ///
        /// Newest only: the event waits in the loop's slot (`LoopStreams.waiting`), and a job is
        /// scheduled only when none is. A loop still busy with the query's last event (a loaded
        /// machine, thousands of streams) takes the newest when it comes to it and skips those
        /// it was handed meanwhile: a window holds everything the skipped ones did that is still
        /// in it, as when a slow client's pending window is replaced. Before, each event was a
        /// job of its own, so a loop that fell behind wrote every stale window to every stream
        /// before the newest (`shelf-benchmarks serve`'s shared run: p99 884 ms at 20 windows/s
        /// to 1,000 streams).
        private func hand(
            _ encoded: ShelfAPI.WindowEvent, at position: Int64?, published: ContinuousClock.Instant, ends: Bool
        ) {
            let chunk = Self.chunk(encoded.bytes)
            let (event, loops, direct) = state.withLock {
                state -> (Event, [(ObjectIdentifier, any EventLoop, Int)], [LiveWindowStream]) in
                state.generation += 1
                let event = Event(
                    bytes: encoded.bytes, chunk: chunk, isWindow: encoded.isWindow,
                    position: position, published: published, generation: state.generation, ends: ends)
                state.latest = event
                var loops: [(ObjectIdentifier, any EventLoop, Int)] = []
                var direct: [LiveWindowStream] = []
                for (key, group) in state.streams {
                    guard let key, let loop = group.loop else {
                        direct += group.members.values.map(\.stream)
                        continue
                    }
                    // The store's last word is never replaced: the streams write it and end.
                    if group.waiting?.ends == true { continue }
                    state.streams[key]?.waiting = event
                    if group.jobAt == nil {
                        state.streams[key]?.jobAt = state.joins
                        loops.append((key, loop, state.joins))
                    }
                }
                return (event, loops, direct)
            }
            for (key, loop, at) in loops {
                loop.execute { self.takeOnLoop(key, scheduledAt: at) }
            }
            for stream in direct { stream.deliver(event) }
        }

        /// `bytes` framed as an HTTP/1.1 chunk; empty for empty bytes (an empty chunk would end
        /// the body, and NIOHTTP1 writes none).
        static func chunk(_ bytes: ByteBuffer) -> ByteBuffer {
            guard bytes.readableBytes > 0 else { return bytes }
            var chunk = ByteBuffer()
            chunk.reserveCapacity(bytes.readableBytes + 12)
            chunk.writeString(String(bytes.readableBytes, radix: 16))
            chunk.writeStaticString("\r\n")
            chunk.writeImmutableBuffer(bytes)
            chunk.writeStaticString("\r\n")
            return chunk
        }

        /// The job of `hand` on the event loop `key`, scheduled when `joins` was `scheduledAt`:
        /// takes the loop's waiting event and writes it to each stream of the loop that had
        /// joined by then. One that joined since gets it through its own job (`deliver`), queued
        /// now, behind its response head; a job whose group has gone (its streams left, and a
        /// new group's job is another) does nothing.
        private func takeOnLoop(_ key: ObjectIdentifier, scheduledAt: Int) {
            let taken = state.withLock { state -> (Event, [LiveWindowStream], [LiveWindowStream])? in
                guard let group = state.streams[key], group.jobAt == scheduledAt, let event = group.waiting else {
                    return nil
                }
                state.streams[key]?.waiting = nil
                state.streams[key]?.jobAt = nil
                var ready: [LiveWindowStream] = []
                var later: [LiveWindowStream] = []
                ready.reserveCapacity(group.members.count)
                for (stream, joined) in group.members.values {
                    if joined <= scheduledAt { ready.append(stream) } else { later.append(stream) }
                }
                return (event, ready, later)
            }
            guard let (event, ready, later) = taken else { return }
            for stream in ready { stream.takeOnLoop(event) }
            for stream in later { stream.deliver(event) }
        }
    }

    /// The fan-outs of the open live queries, by query key.
    final class LiveWindowFanouts: Sendable {
        private let fanouts = Mutex<[String: LiveWindowFanout]>([:])

        /// Adds `stream` to `query`'s fan-out, starting one on `property` when the query has none.
        func add(
            _ stream: LiveWindowStream, to query: String, property: Property<LiveResult<LiveSnapshot<ItemWindow>>>,
            api: ShelfAPI
        ) {
            // Added under the registry's lock, so that a fan-out its last stream is leaving is
            // never joined (`remove` takes it out of the registry under the same lock).
            let (fanout, latest, before) = fanouts.withLock { fanouts in
                let fanout = fanouts[query] ?? LiveWindowFanout(query: query)
                fanouts[query] = fanout
                let (latest, before) = fanout.add(stream)
                return (fanout, latest, before)
            }
            // The first stream starts it (another that joins meanwhile gets the first window
            // when it is encoded); a later one gets the newest event at once.
            if before == 0 {
                fanout.start(property, position: api.options.windowPosition) { window, position in
                    try await api.encodeWindowEvent(window, at: position)
                }
            }
            if let latest { stream.deliver(latest) }
        }

        /// Removes `stream` from `query`'s fan-out; the last stream stops it.
        func remove(_ stream: LiveWindowStream, from query: String) {
            let emptied = fanouts.withLock { fanouts -> LiveWindowFanout? in
                guard let fanout = fanouts[query], fanout.remove(stream) == 0 else { return nil }
                fanouts[query] = nil
                return fanout
            }
            emptied?.stop()
        }
    }
#endif
