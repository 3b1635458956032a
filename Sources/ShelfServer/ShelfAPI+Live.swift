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
                let mailbox = LiveMailbox<LiveStreamSignal>()
                mailbox.end(whenClosed: connection)
                let activity = StreamActivity()
                let stream = LiveWindowStream(
                    channel: connection, resumedAfter: resumeAfter?.sequence, mailbox: mailbox, activity: activity,
                    metrics: metrics)
                metrics.streamOpened(query: key)
                // Its windows come from the query's fan-out: encoded once, written from the
                // connection's event loop (`LiveWindowFanout`).
                windowFanouts.add(stream, to: key, property: property, api: self)
                defer {
                    windowFanouts.remove(stream, from: key)
                    metrics.streamClosed(query: key)
                }
                try await serveEvents(
                    from: mailbox, to: writer, activity: activity, authorization: authorization, of: Context.self,
                    connection: connection
                ) { writer in
                    try await write(stream, to: &writer)
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
        /// tick into `mailbox` once `keepAlive` has passed without any write to the stream
        /// (recorded in `activity`, which writes made elsewhere record too; a stream busy sending
        /// events sends none), the authorization rechecks
        /// (`watchAuthorization`), and the end of the mailbox when the application shuts down
        /// gracefully. A stream still writing a second after that (a big window to a client that
        /// reads it slowly) has its `connection` closed: a shutdown waits for no client.
        func serveEvents<Context: RequestContext, Value: Sendable>(
            from mailbox: LiveMailbox<Value>, to writer: any ResponseBodyWriter,
            activity: StreamActivity = StreamActivity(),
            authorization: String?, of context: Context.Type, connection: (any Channel)?,
            _ stream: (inout any ResponseBodyWriter) async throws -> Void
        ) async throws {
            var recording: any ResponseBodyWriter = ActivityRecordingWriter(base: writer, activity: activity)
            try await withThrowingTaskGroup(of: Void.self) { group in
                let keepAlive = options.keepAlive
                group.addTask {
                    try await activity.requestKeepAlives(every: keepAlive) { mailbox.keepAlive() }
                }
                let watch = watchAuthorization(authorization, of: Context.self, revoking: mailbox)
                defer {
                    authorizationWatches.remove(watch)
                    group.cancelAll()
                }
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

        /// Revokes `mailbox` once the request's authorization (`authorization`, its header) no
        /// longer holds: a revoked token (or its user deleted, or a first token made on an open
        /// server) ends the stream within `authorizationRecheck`. The header is checked every
        /// `authorizationRecheck` once for all the streams that sent it (`AuthorizationWatches`).
        /// End with `authorizationWatches.remove`.
        func watchAuthorization<Context: RequestContext, Value>(
            _ authorization: String?, of context: Context.Type, revoking mailbox: LiveMailbox<Value>
        ) -> AuthorizationWatches.Registration {
            let (store, requireToken) = (store, options.requireToken)
            let check: @Sendable () async throws -> String? = {
                do {
                    _ = try await TokenMiddleware<Context>.authorize(
                        authorization, method: .get, store: store, requireToken: requireToken)
                    return nil
                } catch let problem as Problem {
                    return problem.detail
                }
            }
            return authorizationWatches.add(
                authorization, every: options.authorizationRecheck, revoke: { mailbox.revoke($0) }, check: check)
        }

        /// Writes what `stream`'s mailbox hands on until it ends: keep-alives, and the events of a
        /// stream without a connection of its own (the others' windows are written from their
        /// event loop, `LiveWindowStream`). Before a last error event (a revoked token, the
        /// store's file replaced) and before returning, the stream's direct writes are stopped,
        /// so they all come before what this writes next and before the body's end.
        private func write(_ stream: LiveWindowStream, to writer: inout any ResponseBodyWriter) async throws {
            do {
                while true {
                    switch await stream.mailbox.next() {
                    case .end:
                        await stream.close()
                        return
                    case .keepAlive:
                        try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                    case .unauthorized(let detail):
                        await stream.close()
                        let data = JSONValue.object(["status": .integer(401), "detail": .string(detail)])
                        try await writer.write(
                            ByteBuffer(
                                bytes: Array("event: error\ndata: ".utf8) + data.encoded() + Array("\n\n".utf8)))
                        return
                    case .value(.event(let event), _):
                        try await writer.write(event.bytes)
                        stream.wrote(event)
                    case .value(.finish(let bytes), _):
                        await stream.close()
                        try await writer.write(bytes)
                        return
                    }
                }
            } catch {
                await stream.close()
                throw error
            }
        }

        /// `event: error` with `{"detail", "code"}` of `error`.
        static func errorEvent(_ error: StoreError) -> ByteBuffer {
            let data = JSONValue.object(["detail": .string(error.message), "code": .string("\(error.code)")])
            return ByteBuffer(bytes: Array("event: error\ndata: ".utf8) + data.encoded() + Array("\n\n".utf8))
        }
    }
#endif
