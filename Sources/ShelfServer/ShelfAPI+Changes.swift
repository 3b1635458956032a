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
        /// the changes after it.
        ///
        /// The stream reads the log as its client takes the events (`changePage` at a time), so
        /// a slow client costs the server one page, never a queue. When the changes after its
        /// position are no longer in the log (pruned, because it asked for, or fell behind to, a
        /// position older than the log keeps; or never logged one by one, a bulk import), it gets
        /// `event: reset` with `{"detail", "head"}` and the stream ends: the client reads what it
        /// keeps again (`GET /api/items`, `/api/users`) and then follows from `after=head`. A
        /// store failure ends the stream with `event: error` of `{"detail", "code"}`; the client
        /// reconnects with its last id.
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
            let lastEventIDs = request.headers[values: HTTPField.Name("Last-Event-ID")!]
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
            var pending = ChangeLogPending()
            var due = true
            // Changes held back behind a position that may still commit (PostgreSQL) are read
            // again shortly: a transaction that rolls back announces nothing.
            var recheck: Task<Void, Never>?
            var recheckDelay = Self.firstRecheck
            defer { recheck?.cancel() }
            while true {
                // Shutdown, the client gone or its token revoked: no further page is read (a
                // catch-up of a long log checks between pages, not only once it has caught up).
                if due, mailbox.hasEnded { due = false }
                if due {
                    let excerpt: ChangeLogExcerpt
                    var events: [(Int64, ByteBuffer)] = []
                    do {
                        excerpt = try await store.changeLog(after: position, limit: Self.changePage, pending: pending)
                        var rows = ChangeRows(store: store)
                        // A row is sent once a page, with the last of the page's changes to it
                        // (the row as it is now); the earlier ones name that change in `row_in`.
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
                            events.append(
                                (change.sequence, Self.event("change", id: change.sequence, data: .object(fields))))
                        }
                    } catch let error as StoreError {
                        let data = JSONValue.object([
                            "detail": .string(
                                "\(error.message); the stream ends here: reconnect with Last-Event-ID: \(position)"),
                            "code": .string("\(error.code)"),
                        ])
                        try await writer.write(Self.event("error", data: data))
                        return
                    }
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
                    recheck?.cancel()
                    recheck = nil
                    if !pending.isEmpty {
                        let delay = recheckDelay
                        recheck = Task {
                            // Cancelled: a newer read replaced this one.
                            guard (try? await Task.sleep(for: delay)) != nil else { return }
                            mailbox.post(true)
                        }
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

        /// The first and the longest wait before changes held back (`ChangeLogExcerpt.pending`)
        /// are read again, when no commit wakes the stream first.
        static let firstRecheck: Duration = .milliseconds(5)
        static let lastRecheck: Duration = .milliseconds(200)

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
