#if Server
    internal import NIOCore
    internal import NIOHTTP1
    internal import NIOHTTPTypes
    internal import ShelfStore
    internal import Synchronization

    /// What a live items stream's task is told through its mailbox, besides keep-alives and its end.
    enum LiveStreamSignal: Sendable {
        /// An event for the task to write: every event of a stream without a connection of its
        /// own (`LiveWindowStream.loop` nil); the others write theirs from their event loop.
        case event(LiveWindowFanout.Event)
        /// The store's last word (its file was replaced): write these bytes and end.
        case finish(ByteBuffer)
    }

    /// One `GET /api/items/live` stream as its query's `LiveWindowFanout` sees it: it writes each
    /// event it is handed to its connection, from the connection's event loop, unless it has it
    /// already (an older generation, or a window at or before the position its client resumed
    /// after or was last sent).
    ///
    /// While the connection is unwritable (its client reads slower than windows come), the
    /// stream keeps the newest event only and writes it once its last write has gone out, so a
    /// slow client holds what its socket and NIO's buffer hold plus one event, and
    /// `ConnectionGuard` closes a connection that stays unwritable. Its task (`ShelfAPI.liveItems`)
    /// writes the keep-alives and the last error events through Hummingbird's writer, after
    /// `close()`, and the body's end after that: every direct write is queued on the event loop
    /// before them.
    final class LiveWindowStream: Sendable {
        /// The connection's event loop; nil when the routes cannot see the connection (then
        /// every event goes through `mailbox` to the task).
        let loop: (any EventLoop)?
        let mailbox: LiveMailbox<LiveStreamSignal>
        let activity: StreamActivity
        private let channel: (any Channel)?
        private let metrics: ServerMetrics
        /// Where the events go on the wire (the stream's event loop only; `wire(of:)`).
        private let wire: NIOLoopBoundBox<Wire>?

        /// NIOHTTP1's response encoder, found at the first write: an event is written from its
        /// context, below it, as bytes framed as it would frame them (`HTTP10Framing.bodyFraming`).
        /// Through the pipeline, each event passed every handler above the encoder (each
        /// unwrapping and wrapping it again, the HTTP types converted), and the encoder wrote it
        /// as three writes (the size line allocated per write) whose three promises it joined
        /// into the caller's: the same work for each of 1,000 streams of a shared window (issue
        /// 24). Those handlers do nothing with a body part but pass it on (`ConnectionGuard`
        /// fails one on a connection whose request body timed out; a live stream's has none).
        private enum Wire {
            case unknown
            case pipeline
            case belowEncoder(ChannelHandlerContext, HTTP10Framing)
        }

        private struct State {
            /// The newest event taken (`LiveWindowFanout.Event.generation`).
            var generation = 0
            /// The position of the last window written, or the one the client resumed after.
            var sent: Int64?
            var closed = false
            /// An event waiting for the connection to take the last write.
            var pending: LiveWindowFanout.Event?
            var waiting = false
            var lastWrite: EventLoopFuture<Void>?
        }

        private let state: Mutex<State>

        init(
            channel: (any Channel)?, resumedAfter: Int64?, mailbox: LiveMailbox<LiveStreamSignal>,
            activity: StreamActivity, metrics: ServerMetrics
        ) {
            self.channel = channel
            loop = channel?.eventLoop
            wire = channel.map { NIOLoopBoundBox.makeBoxSendingValue(Wire.unknown, eventLoop: $0.eventLoop) }
            self.mailbox = mailbox
            self.activity = activity
            self.metrics = metrics
            state = Mutex(State(sent: resumedAfter))
        }

        /// Hands `event` to the stream, from any thread: to its event loop, or to its task.
        func deliver(_ event: LiveWindowFanout.Event) {
            if let loop {
                loop.execute { self.takeOnLoop(event) }
                return
            }
            // Posted under the lock, so that an older event checked before it is never posted
            // after it (the mailbox keeps only the last one posted).
            state.withLock { state in
                guard accept(event, &state) else { return }
                mailbox.post(event.ends ? .finish(event.bytes) : .event(event))
            }
        }

        /// Whether `event` is new to the stream; records it as taken (and a window's position
        /// as sent) if so.
        private func accept(_ event: LiveWindowFanout.Event, _ state: inout State) -> Bool {
            guard !state.closed, event.generation > state.generation else { return false }
            state.generation = event.generation
            // The client has this window already (it resumed after a position at or past it, or
            // was sent it): nothing is sent, so ids only increase.
            if event.isWindow, let position = event.position {
                if let sent = state.sent, position <= sent { return false }
                state.sent = position
            }
            return true
        }

        /// Takes `event` on the connection's event loop: writes it now if the connection is
        /// writable and no write is waited on, else keeps it (the newest) for when the last write
        /// has gone out. The store's last word goes to the task, which writes it and ends.
        func takeOnLoop(_ event: LiveWindowFanout.Event) {
            guard let channel else { return deliver(event) }
            enum Step: Sendable {
                case none
                case write(LiveWindowFanout.Event)
                /// Wait for this write to go out (nil: none was made), then write the pending event.
                case wait(EventLoopFuture<Void>?)
            }
            let step = state.withLock { state -> Step in
                guard accept(event, &state) else { return .none }
                if event.ends {
                    state.closed = true
                    state.pending = nil
                    mailbox.post(.finish(event.bytes))
                    return .none
                }
                // A write is waited on already: this event replaces the pending one.
                guard !state.waiting else {
                    state.pending = event
                    return .none
                }
                guard channel.isWritable else {
                    state.pending = event
                    state.waiting = true
                    return .wait(state.lastWrite)
                }
                return .write(event)
            }
            switch step {
            case .none: break
            case .write(let event): write(event, to: channel)
            case .wait(let last?): last.whenComplete { _ in self.writePending(to: channel) }
            // No write of this stream's is in NIO's buffer to wait for: the pending event goes
            // now (one event, over what the connection's other writes left).
            case .wait(nil): writePending(to: channel)
            }
        }

        /// Writes the pending event once the write waited on has gone out (or failed).
        private func writePending(to channel: any Channel) {
            let next = state.withLock { state -> LiveWindowFanout.Event? in
                guard state.waiting else { return nil }
                state.waiting = false
                defer { state.pending = nil }
                return state.closed ? nil : state.pending
            }
            if let next { write(next, to: channel) }
        }

        private func write(_ event: LiveWindowFanout.Event, to channel: any Channel) {
            let written: EventLoopFuture<Void>
            if case .belowEncoder(let encoder, let framing) = wire(of: channel), let framing = framing.bodyFraming {
                let promise = channel.eventLoop.makePromise(of: Void.self)
                encoder.writeAndFlush(NIOAny(framing == .chunked ? event.chunk : event.bytes), promise: promise)
                written = promise.futureResult
            } else {
                written = channel.writeAndFlush(HTTPResponsePart.body(event.bytes))
            }
            state.withLock { $0.lastWrite = written }
            activity.wrote()
            if event.isWindow { metrics.delivered(after: ContinuousClock.now - event.published) }
        }

        /// Where `channel`'s events are written (looked up at the first write; on the event loop):
        /// below NIOHTTP1's encoder when the pipeline has it and `HTTP10Framing`, else through
        /// the whole pipeline. The framing is read at each write: a response whose framing is
        /// not known (none, or an answer to HEAD) goes through the pipeline.
        private func wire(of channel: any Channel) -> Wire {
            guard let wire else { return .pipeline }
            if case .unknown = wire.value {
                let pipeline = channel.pipeline.syncOperations
                if let encoder = try? pipeline.context(handlerType: HTTPResponseEncoder.self),
                    let framing = try? pipeline.handler(type: HTTP10Framing.self)
                {
                    wire.value = .belowEncoder(encoder, framing)
                } else {
                    wire.value = .pipeline
                }
            }
            return wire.value
        }

        /// Records that the task wrote `event` (a stream without a connection of its own).
        func wrote(_ event: LiveWindowFanout.Event) {
            if event.isWindow { metrics.delivered(after: ContinuousClock.now - event.published) }
        }

        /// Writes nothing more from the event loop (a pending event is dropped). Returns once the
        /// loop has taken this in: what the task writes next comes after every direct write.
        func close() async {
            guard let loop else {
                state.withLock { $0.closed = true }
                return
            }
            let closing = loop.submit {
                self.state.withLock { state in
                    state.closed = true
                    state.pending = nil
                }
            }
            // It fails only if the loop has shut down, when nothing more is written anyway.
            try? await closing.get()
        }
    }
#endif
