#if Server
    internal import Foundation
    internal import HTTPTypes
    internal import Hummingbird
    internal import HummingbirdCore
    internal import NIOCore
    internal import ServiceLifecycle
    internal import ShelfReactive
    internal import ShelfStore

    extension ShelfAPI {
        /// `GET /api/items/live?q=&limit=` (also `sort`, `order`): `text/event-stream` with an
        /// `event: window` of `{"count","items","seq"}` at once and whenever the window or the
        /// count changes, an `event: error` when a re-read fails (the stream stays open and the
        /// store retries) or instead of a window holding a value another program stored with the
        /// wrong type (`Store.refuseMistypedItems`; the stream stays open, and the window once the
        /// row is corrected is sent), a `: keep-alive` comment after each quiet `keepAlive`. It ends when
        /// the client goes, the store fails for good, the application shuts down, or the
        /// request's token no longer holds (checked every `authorizationRecheck`; then a last
        /// `event: error` of `{"status": 401, "detail"}`).
        ///
        /// `seq` and the event `id:` are the change-log position the window reflects
        /// (`Store.liveItemSnapshots`, or `Options.windowPosition` for a store that gives none).
        /// A client reconnecting with `Last-Event-ID: S` gets its first window only if the
        /// window changed after `S` (`LivePosition`'s resume contract), so it gets nothing it
        /// has and misses nothing, and ids only increase (SQLite and PostgreSQL). A backend
        /// that keeps no change log gives no positions: `seq` is null, no `id:` is written, and
        /// a reconnecting client always gets the current window.
        func liveItems<Context: RequestContext>(_ request: Request, context: Context) async throws -> Response {
            let parameters = try QueryParameters(request.uri.query)
            try parameters.allowOnly(["q", "sort", "order", "limit"])
            let query = try Self.itemQuery(parameters)
            let limit = try parameters.integer("limit", in: 1...Self.maximumLimit, default: Self.defaultLimit)
            let property = try await store.liveItemSnapshots(matching: query, limit: limit)
            // What the client already has: the id of the last event it read, when it resumes. An
            // id past the log's head was not sent by this store as it is now (a restore or a copy
            // went back): waiting for the window to pass it would leave the stream silent, so the
            // client gets the current window at once, as for an id that is no position.
            var resumed = request.headers[HTTPField.Name("Last-Event-ID")!].flatMap { LivePosition($0) }
            if let position = resumed, store.streamsChangeLog,
                try await store.changeLog(after: .max, limit: 1).head < position.sequence
            {
                resumed = nil
            }
            let resumeAfter = resumed
            let key = "\(limit) \(query.sortField.rawValue) \(query.sortDirection.rawValue) \(query.text)"
            let authorization = request.headers[.authorization]
            let connection = Self.connection(of: context)
            let body = ResponseBody { [self] writer in
                let mailbox = LiveMailbox<LiveResult<LiveSnapshot<ItemWindow>>>()
                mailbox.end(whenClosed: connection)
                let token = Lifetime.Token()
                property.observe(during: token.lifetime) { mailbox.post($0) }
                metrics.streamOpened(query: key)
                windowEvents.open(key)
                defer {
                    token.end()
                    metrics.streamClosed(query: key)
                    windowEvents.close(key)
                }
                try await serveEvents(
                    from: mailbox, to: writer, authorization: authorization, of: Context.self, connection: connection
                ) { writer in
                    try await stream(from: mailbox, to: &writer, after: resumeAfter, query: key)
                }
                withExtendedLifetime(property) {}
            }
            return Response(
                status: .ok,
                headers: [
                    .contentType: "text/event-stream", .cacheControl: "no-cache",
                    HTTPField.Name("X-Accel-Buffering")!: "no",
                ],
                body: body)
        }

        /// Runs `stream` (which writes an event stream's events as `mailbox` hands them on) to
        /// `writer`, then finishes the body, beside what every event stream needs: a keep-alive
        /// tick into `mailbox` once `keepAlive` has passed without any write to the stream (a
        /// stream busy sending events sends none), the authorization rechecks
        /// (`recheckAuthorization`), and the end of the mailbox when the application shuts down
        /// gracefully. A stream still writing a second after that (a big window to a client that
        /// reads it slowly) has its `connection` closed: a shutdown waits for no client.
        func serveEvents<Context: RequestContext, Value: Sendable>(
            from mailbox: LiveMailbox<Value>, to writer: any ResponseBodyWriter, authorization: String?,
            of context: Context.Type, connection: (any Channel)?,
            _ stream: (inout any ResponseBodyWriter) async throws -> Void
        ) async throws {
            let activity = StreamActivity()
            var recording: any ResponseBodyWriter = ActivityRecordingWriter(base: writer, activity: activity)
            try await withThrowingTaskGroup(of: Void.self) { group in
                let keepAlive = options.keepAlive
                group.addTask {
                    try await activity.requestKeepAlives(every: keepAlive) { mailbox.keepAlive() }
                }
                group.addTask { try await recheckAuthorization(authorization, of: Context.self, revoking: mailbox) }
                defer { group.cancelAll() }
                try await withGracefulShutdownHandler {
                    try await stream(&recording)
                } onGracefulShutdown: {
                    mailbox.end()
                    // A scheduled close, not a task: closing a connection that has ended since
                    // does nothing, and there is no error to report.
                    if let connection {
                        connection.eventLoop.scheduleTask(in: .seconds(1)) { connection.close(promise: nil) }
                    }
                }
            }
            try await recording.finish(nil)
        }

        /// Checks the request's authorization (`authorization`, its header) again every
        /// `authorizationRecheck` while a stream is open, and revokes `mailbox` once it no longer
        /// holds: a revoked token (or its user deleted, or a first token made on an open server)
        /// ends the stream within that time. Returns then; runs until cancelled otherwise.
        func recheckAuthorization<Context: RequestContext, Value>(
            _ authorization: String?, of context: Context.Type, revoking mailbox: LiveMailbox<Value>
        ) async throws {
            let recheck = options.authorizationRecheck
            while true {
                try await Task.sleep(for: recheck)
                // The store failing is no verdict on the token: check again later.
                let refusal = try? await rechecks.refusal(for: authorization, lifetime: recheck / 2) {
                    _ = try await TokenMiddleware<Context>.authorize(
                        authorization, method: .get, store: store, requireToken: options.requireToken)
                }
                if let refusal = refusal ?? nil {
                    mailbox.revoke(refusal)
                    return
                }
            }
        }

        private func stream(
            from mailbox: LiveMailbox<LiveResult<LiveSnapshot<ItemWindow>>>, to writer: inout any ResponseBodyWriter,
            after resumed: LivePosition?, query: String
        ) async throws {
            var sent = resumed
            while true {
                switch await mailbox.next() {
                case .end: return
                case .keepAlive:
                    try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                case .unauthorized(let detail):
                    let data = JSONValue.object(["status": .integer(401), "detail": .string(detail)])
                    try await writer.write(
                        ByteBuffer(bytes: Array("event: error\ndata: ".utf8) + data.encoded() + Array("\n\n".utf8)))
                    return
                case .value(.success(let snapshot), let published):
                    let window = snapshot.value
                    var position = snapshot.position?.sequence
                    if position == nil { position = await options.windowPosition(window) }
                    // The client has this window already (it resumed after a position at or
                    // past it): send nothing, so ids only increase.
                    if let position, let last = sent?.sequence, position <= last { continue }
                    // Encoded once for all the query's streams (`LiveWindowEvents`).
                    let fixed = position
                    let event = try await windowEvents.event(for: window, at: position, of: query, unless: mailbox) {
                        try await encodeWindowEvent(window, at: fixed)
                    }
                    // The mailbox ended while the window was encoded: `next()` says how (the
                    // end, or a revoked token's 401 event).
                    guard let event else { continue }
                    try await writer.write(event.bytes)
                    // A window refused for a value of the wrong type (an error event in its
                    // place) is not the client's: the next one, once the row is corrected, is
                    // sent as new.
                    guard event.isWindow else { continue }
                    if let position { sent = LivePosition(sequence: position) }
                    metrics.delivered(after: ContinuousClock.now - published)
                case .value(.failure(let error), _):
                    try await writer.write(Self.errorEvent(error))
                    if error.code == .fileReplaced { return }
                }
            }
        }

        /// `event: error` with `{"detail", "code"}` of `error`.
        static func errorEvent(_ error: StoreError) -> ByteBuffer {
            let data = JSONValue.object(["detail": .string(error.message), "code": .string("\(error.code)")])
            return ByteBuffer(bytes: Array("event: error\ndata: ".utf8) + data.encoded() + Array("\n\n".utf8))
        }
    }
#endif
