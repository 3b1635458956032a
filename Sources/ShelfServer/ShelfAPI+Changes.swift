#if Server
    internal import Foundation
    internal import HTTPTypes
    internal import Hummingbird
    internal import HummingbirdCore
    internal import NIOCore
    internal import ServiceLifecycle
    internal import ShelfStore

    extension ShelfAPI {
        /// The most changes a change stream reads from the log at a time: all a stream holds in
        /// memory, however far behind its client is.
        static let changePage = 256

        /// `GET /api/changes?after=SEQ`: `text/event-stream` of every row change in the store's
        /// change log after position `SEQ`, in log order, one `event: change` each, with `id:
        /// SEQ` and data `{"seq","table","id","op","row"}` (`table` is `items` or `users`; `op`
        /// is `insert`, `update` or `delete`; `row` is the row as `GET /api/{table}/{id}` shows it
        /// now, or null when it is gone). A row is sent once per page of changes (`changePage`),
        /// with the page's last change to it: an earlier change to the same row in that page has
        /// `row_in` (the seq of the event that carries the row) instead of `row`, so what one
        /// request can make the server send is bounded by the rows changed, not by the changes
        /// logged against them. Then it follows new commits (any writer: another
        /// process, the sqlite3 shell) until the client goes, the application shuts down, or the
        /// token no longer holds (as `/api/items/live`: a last `event: error` of
        /// `{"status": 401, "detail"}`).
        ///
        /// `Last-Event-ID` (what an EventSource sends when it reconnects) is used instead of
        /// `after` when both are given; with neither the stream starts at the log's head (only
        /// changes from now on). Ids only increase, and a stream resumed from an id gets exactly
        /// the changes after it. Every stream begins at once with its position as an event of an
        /// `id:` alone (after a `: position` comment), which sets the client's last event id and
        /// dispatches nothing: a client that goes before the first change resumes from there and
        /// misses nothing committed meanwhile. (On PostgreSQL, a stream from now may start below
        /// the head, past changes it does not send because they were visible when it opened: a
        /// client resuming from that position gets those too, never fewer.)
        ///
        /// When the log cannot be read because the database went away (a restart, its
        /// connections ended, `StoreError.isConnectionLost`; or it cannot be reached), the stream
        /// says so in a comment and reads again from the last position it sent, every 100 ms to
        /// 2 s (and at once when the change feed is back), sending nothing twice and missing
        /// nothing; only after `outageLimit` (30 s) without a read does it end, with an
        /// `event: error` saying to reconnect with the last id. The 30 s count from when the
        /// database last answered: from when the change feed last heard it, when the feed has
        /// lost it (a network gone silent is noticed some seconds later), else from the read.
        ///
        /// The stream reads the log as its client takes the events (`changePage` at a time), so
        /// a slow client costs the server one page, never a queue. When the changes after its
        /// position are no longer in the log (pruned, because it asked for, or fell behind to, a
        /// position older than the log keeps; or never logged one by one, a bulk import), it gets
        /// `event: reset` with `{"detail", "head"}` and the stream ends: the client reads what it
        /// keeps again (`GET /api/items`, `/api/users`) and then follows from `after=head`. Any
        /// other store failure ends the stream with `event: error` of `{"detail", "code"}`; the
        /// client reconnects with its last id.
        ///
        /// On PostgreSQL, whose transactions commit their positions out of order, a change is
        /// sent only once every lower position has committed or will never commit: a change that
        /// commits late with a lower position than one already visible is never skipped, and
        /// the changes after it wait (as long as the transactions that were in progress when
        /// the gap was first seen).
        ///
        /// A position that is not an integer from 0 to the log's head is a 400; a store whose
        /// backend does not stream its log answers 501.
        func changes<Context: RequestContext>(_ request: Request, context: Context) async throws -> Response {
            let parameters = try QueryParameters(request.uri.query)
            try parameters.allowOnly(["after"])
            guard store.streamsChangeLog else {
                throw Problem(
                    .notImplemented,
                    "the change stream is not available on \(store.location); follow /api/items/live instead")
            }
            // An empty one is no id: an EventSource whose last `id:` was empty sends none, and a
            // proxy or a hand-written client that sends it empty means the same (hostile round 10).
            let lastEventIDs = request.headers[values: HTTPField.Name("Last-Event-ID")!].filter {
                !$0.trimmingCharacters(in: .whitespaces).isEmpty
            }
            if lastEventIDs.count > 1 {
                throw Problem(.badRequest, "the request has Last-Event-ID twice; send one")
            }
            let head = try await store.changeLog(after: .max, limit: 1).head
            // Both are checked; the id of the last event read wins (the URL's `after` is where the
            // client first started).
            let after = try parameters["after"].map { try Self.position($0, named: "parameter 'after'", head: head) }
            let lastEventID = try lastEventIDs.first.map { try Self.position($0, named: "Last-Event-ID", head: head) }
            // From now on: the head, or, on PostgreSQL while transactions are in progress,
            // below it, passing over what was visible at the start (only what commits later).
            let start: ChangeLogStart
            if let position = lastEventID ?? after {
                start = ChangeLogStart(position: position, head: position)
            } else {
                start = try await store.changeLogStart()
            }
            let authorization = request.headers[.authorization]
            let connection = Self.connection(of: context)
            let body = ResponseBody { [self] writer in
                // A wake-up per commit; many coalesce into one read.
                let mailbox = LiveMailbox<Bool>()
                mailbox.end(whenClosed: connection)
                let watch = try await store.watchChangeLog { mailbox.post(true) }
                metrics.changeStreamOpened()
                defer {
                    metrics.changeStreamClosed()
                    withExtendedLifetime(watch) {}
                }
                try await serveEvents(
                    from: mailbox, to: writer, authorization: authorization, of: Context.self, connection: connection
                ) { writer in
                    try await streamChanges(from: mailbox, to: &writer, after: start)
                }
            }
            return Response(
                status: .ok,
                headers: [
                    .contentType: "text/event-stream", .cacheControl: "no-cache",
                    HTTPField.Name("X-Accel-Buffering")!: "no",
                ],
                body: body)
        }

        /// `text` as a change-log position from 0 to `head`, or a 400 naming `name`.
        static func position(_ text: String, named name: String, head: Int64) throws -> Int64 {
            let printable = JSONReader.printable(text)
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int64(text) else {
                throw Problem(
                    .badRequest,
                    "\(name) '\(printable)' is not a change-log position: give an integer from 0 to \(head) "
                        + "(the log's head now): the id of the last change event read, or 0 for the whole log")
            }
            guard value <= head else {
                throw Problem(
                    .badRequest,
                    "\(name) \(value) lies past the change log's head (\(head)): give the id of a change event "
                        + "this store sent, or 0 for the whole log")
            }
            return value
        }

        private func streamChanges(
            from mailbox: LiveMailbox<Bool>, to writer: inout any ResponseBodyWriter, after start: ChangeLogStart
        ) async throws {
            var position = start.position
            // The position at once, before any change: a client that goes before the first
            // change has an id to resume from (an event of an `id:` alone sets an EventSource's
            // last event id and dispatches nothing).
            try await writer.write(ByteBuffer(string: ": position\nid: \(position)\n\n"))
            var pending = ChangeLogPending()
            var due = true
            // Changes held back behind a position that may still commit (PostgreSQL) are read
            // again shortly: a transaction that rolls back announces nothing. A read that failed
            // for want of the database is tried again likewise.
            var wake: Task<Void, Never>?
            var recheckDelay = Self.firstRecheck
            defer { wake?.cancel() }
            // Since when the log could not be read (the database unreachable), and the wait
            // before the next try.
            var outage: ContinuousClock.Instant?
            var retryDelay = Self.firstRetry
            // When this stream last read the log (the route read its head just before).
            var lastRead = ContinuousClock.now
            while true {
                // Shutdown, the client gone or its token revoked: no further page is read (a
                // catch-up of a long log checks between pages, not only once it has caught up).
                if due, mailbox.hasEnded { due = false }
                if due {
                    let excerpt: ChangeLogExcerpt
                    let events: [(Int64, ByteBuffer)]
                    // Every read, and the tries again after it failed, end within `outageLimit`
                    // of the database's silence: over a network gone silent each try's calls
                    // waited 11-25 s, and the stream ended 71 s after the first (hostile round
                    // 10). The silence is counted from when the change feed last heard the
                    // server, not from this read: the feed tells its watchers of the loss 11-12 s
                    // after it (its check unanswered for 10 s, then its 1 s grace), and only
                    // then does the stream read; counted from the read, it ended 42 s after the
                    // silence (issue 24). Never from before this stream's own last read.
                    let readStart = ContinuousClock.now
                    let silentSince = store.changeFeedSilentSince.map { max(lastRead, min($0, readStart)) }
                    let began = outage ?? silentSince ?? readStart
                    let deadline = CallDeadline(at: began + Self.outageLimit, limit: Self.outageLimit)
                    do {
                        (excerpt, events) = try await CallDeadline.$current.withValue(deadline) {
                            try await changePage(after: position, pending: pending, start: start, mailbox)
                        }
                    } catch let error as StoreError {
                        // The database went away (a restart, its connections ended): read again
                        // from the same position once it is back, for up to `outageLimit`.
                        let failed = ContinuousClock.now
                        guard Self.mayPass(error), failed - began < Self.outageLimit else {
                            // A first failure is its own message, unless the silence began before it.
                            let what =
                                outage == nil && (began == readStart || !Self.mayPass(error))
                                ? error.message
                                : "the change log could not be read for \(Self.outageLimit.components.seconds) s "
                                    + "(\(error.message))"
                            let data = JSONValue.object([
                                "detail": .string(
                                    "\(what); the stream ends here: reconnect with Last-Event-ID: \(position)"),
                                "code": .string("\(error.code)"),
                            ])
                            try await writer.write(Self.event("error", data: data))
                            return
                        }
                        if outage == nil {
                            outage = began
                            let left = max(Self.outageLimit - (failed - began), .zero).components.seconds
                            // A comment: for a person reading the stream; clients ignore it.
                            try await writer.write(
                                ByteBuffer(
                                    string: ": the change log cannot be read (\(Self.commentText(error.message))); "
                                        + "trying again until \(Self.outageLimit.components.seconds) s after the "
                                        + "database last answered (\(left) s more), from id \(position)\n\n"))
                        }
                        wake?.cancel()
                        wake = Self.post(to: mailbox, after: retryDelay)
                        retryDelay = min(retryDelay * 2, Self.lastRetry)
                        due = false
                        continue
                    }
                    if outage != nil {
                        // The client learns the database is back, not only that it was away.
                        try await writer.write(
                            ByteBuffer(
                                string:
                                    ": the change log can be read again; the stream goes on after id \(position)\n\n"))
                    }
                    outage = nil
                    lastRead = .now
                    retryDelay = Self.firstRetry
                    // Ended while the page was read: none of it is sent (the mailbox says why).
                    if mailbox.hasEnded {
                        due = false
                        continue
                    }
                    for (sequence, event) in events {
                        try await writer.write(event)
                        position = sequence
                    }
                    if excerpt.interrupted {
                        let head = (try? await store.changeLogStart())?.position ?? excerpt.head
                        let data = JSONValue.object([
                            "detail": .string(
                                "the changes after \(position) are no longer in the change log (pruned, or written "
                                    + "by a bulk import); read the items and users again, then follow "
                                    + "/api/changes?after=\(head)"),
                            "head": .integer(head),
                        ])
                        try await writer.write(Self.event("reset", data: data))
                        return
                    }
                    position = excerpt.next
                    pending = excerpt.pending
                    wake?.cancel()
                    wake = nil
                    if !pending.isEmpty {
                        wake = Self.post(to: mailbox, after: recheckDelay)
                        recheckDelay = min(recheckDelay * 2, Self.lastRecheck)
                    } else {
                        recheckDelay = Self.firstRecheck
                    }
                    // A full page: more may follow at once.
                    due = excerpt.hasMore
                    if due { continue }
                }
                switch await mailbox.next() {
                case .end: return
                case .keepAlive:
                    try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                case .unauthorized(let detail):
                    let data = JSONValue.object(["status": .integer(401), "detail": .string(detail)])
                    try await writer.write(Self.event("error", data: data))
                    return
                case .value: due = true
                }
            }
        }

        /// The changes after `position` (those `start` includes) as events, each with its seq, and
        /// the excerpt of the log they come from: one page, read whole before anything of it is
        /// sent, so a failed read sends nothing and is tried again from the same position.
        private func changePage(
            after position: Int64, pending: ChangeLogPending, start: ChangeLogStart, _ mailbox: LiveMailbox<Bool>
        ) async throws -> (ChangeLogExcerpt, [(Int64, ByteBuffer)]) {
            let excerpt = try await store.changeLog(after: position, limit: Self.changePage, pending: pending)
            var events: [(Int64, ByteBuffer)] = []
            var rows = ChangeRows(store: store)
            // A row is sent once a page, with the last of the page's changes to it (the row as
            // it is now); the earlier ones name that change in `row_in`.
            let sent = excerpt.changes.filter { start.includes($0.sequence) }
            var last: [String: Int64] = [:]
            for change in sent { last[ChangeRows.key(of: change)] = change.sequence }
            for change in sent {
                if mailbox.hasEnded { break }
                var fields: [String: JSONValue] = [
                    "seq": .integer(change.sequence), "table": .string(change.table),
                    "id": .integer(change.rowID), "op": .string(change.operation.rawValue),
                ]
                if let later = last[ChangeRows.key(of: change)], later != change.sequence {
                    fields["row_in"] = .integer(later)
                } else {
                    fields["row"] = try await rows.row(of: change)
                }
                events.append((change.sequence, Self.event("change", id: change.sequence, data: .object(fields))))
            }
            return (excerpt, events)
        }

        /// A task that posts to `mailbox` after `delay`, unless cancelled first (a newer read
        /// replaced the one it was for); it has nothing to fail.
        private static func post(to mailbox: LiveMailbox<Bool>, after delay: Duration) -> Task<Void, Never> {
            Task {
                guard (try? await Task.sleep(for: delay)) != nil else { return }
                mailbox.post(true)
            }
        }

        /// True when `error` may pass once the database is back: a connection it lost (a restart,
        /// `pg_terminate_backend`), a server it cannot reach, or a database busy for a moment.
        /// (`isServerUnavailable` marks an unreachable or full server, and a pool whose
        /// connections stayed busy.)
        static func mayPass(_ error: StoreError) -> Bool {
            error.isConnectionLost || error.isServerUnavailable || error.hint == .checkDatabaseLocation
                || error.code == .busy
        }

        /// How long a change stream goes on trying to read the log while the database cannot be
        /// read (`mayPass`) before it ends with an error event; its first and longest wait
        /// between tries (a commit the feed sees once the database is back wakes it sooner).
        static let outageLimit: Duration = .seconds(30)
        static let firstRetry: Duration = .milliseconds(100)
        static let lastRetry: Duration = .seconds(2)

        /// The first and the longest wait before changes held back (`ChangeLogExcerpt.pending`)
        /// are read again, when no commit wakes the stream first.
        static let firstRecheck: Duration = .milliseconds(5)
        static let lastRecheck: Duration = .milliseconds(200)

        /// `text` whole on one line, for a comment: control characters (a line break would end
        /// the comment and start a field) become spaces. Not cut short: the messages are the
        /// store's own, and a comment cut mid-word said less than it meant (hostile round 10).
        static func commentText(_ text: String) -> String {
            String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        }

        /// One server-sent event.
        static func event(_ name: String, id: Int64? = nil, data: JSONValue) -> ByteBuffer {
            var bytes = Array((id.map { "id: \($0)\n" } ?? "").utf8) + Array("event: \(name)\ndata: ".utf8)
            bytes += data.encoded() + Array("\n\n".utf8)
            return ByteBuffer(bytes: bytes)
        }
    }

    /// The rows of one page of changes as the REST API shows them now, each read once.
    private struct ChangeRows {
        let store: Store
        private var read: [String: JSONValue] = [:]

        init(store: Store) { self.store = store }

        /// What names `change`'s row: its table and ID.
        static func key(of change: RowChange) -> String { "\(change.table) \(change.rowID)" }

        mutating func row(of change: RowChange) async throws -> JSONValue {
            let key = Self.key(of: change)
            if let known = read[key] { return known }
            var value = JSONValue.null
            switch change.table {
            case "items":
                if let item = try await store.items.item(id: Item.ID(change.rowID)) {
                    value = try await JSONShapes.items([item], store: store).first ?? .null
                }
            case "users":
                if let user = try await store.users.user(id: User.ID(change.rowID)) { value = JSONShapes.user(user) }
            default: break
            }
            read[key] = value
            return value
        }
    }
#endif
