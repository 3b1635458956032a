#if Server
    internal import Foundation
    public import HTTPTypes
    public import Hummingbird
    internal import Logging
    internal import HummingbirdCore
    internal import NIOCore
    internal import NIOHTTP1
    public import ShelfStore

    /// An HTTP error answered as `application/problem+json` (RFC 9457): a status, a title (the
    /// status's reason) and a `detail` that says what happened and what to do, in the words the
    /// `shelf` command line uses for the same failure.
    public struct Problem: HTTPResponseError, CustomStringConvertible {
        /// The response's status.
        public let status: HTTPResponse.Status
        /// What happened and what to do.
        public let detail: String
        /// Extra headers (`WWW-Authenticate` on a 401).
        public var headers: HTTPFields

        /// A problem with `status` and `detail`.
        public init(_ status: HTTPResponse.Status, _ detail: String, headers: HTTPFields = [:]) {
            self.status = status
            self.detail = detail
            self.headers = headers
        }

        /// `status` and `detail`, as a log line shows them.
        public var description: String { "\(status.code) \(detail)" }

        /// The problem as a `StoreError` maps to HTTP: not found 404, a stale version 412, a taken
        /// email 409, a refused value or unknown owner 400; 503 with `Retry-After: 1` for a busy
        /// database (a lock held too long, no free connection), a database server that cannot be
        /// reached or takes no more connections (nothing was done), and a lost database
        /// connection (a read was already tried again on another connection; a write may or may
        /// not have committed); a store file replaced 503 without `Retry-After` (only a restart
        /// helps); a full disk 507 (nothing was written); others 500.
        public init(_ error: StoreError) {
            self.init(error, write: true)
        }

        /// The problem for `error`, met by a request that writes (`write`) or only reads: a read
        /// that lost its connection changed nothing, and is not told that a write may have been
        /// applied (hostile round 14: a live stream's GET was).
        init(_ error: StoreError, write: Bool) {
            if error.isServerUnavailable {
                self.init(
                    .serviceUnavailable, "the database cannot take the request now: \(error.message)",
                    headers: [.retryAfter: "1"])
                return
            }
            if error.code == .busy {
                self.init(.serviceUnavailable, error.message, headers: [.retryAfter: "1"])
                return
            }
            // The store's disk is full: nothing was written (the transaction rolled back), and
            // the request may succeed once there is room (hostile round 16: it was a 500).
            if error.isDiskFull {
                self.init(
                    .init(code: 507, reasonPhrase: "Insufficient Storage"),
                    "\(error.message) Nothing was changed; the request can be sent again once the server's disk has room."
                )
                return
            }
            if error.isConnectionLost {
                let retry =
                    write
                    ? "retry the request (a write may have been applied: read before writing again)"
                    : "retry the request (it only reads: nothing was changed)"
                self.init(
                    .serviceUnavailable,
                    "the database connection was lost: \(error.message); the server reconnects by itself, " + retry,
                    headers: [.retryAfter: "1"])
                return
            }
            let status: HTTPResponse.Status =
                switch error.code {
                case .notFound: .notFound
                case .conflict: .preconditionFailed
                case .duplicateEmail: .conflict
                case .unknownUser, .invalidValue: .badRequest
                // The store's file is gone (or another one): nothing here can be served until the
                // server is restarted on it, which is what the message says to do.
                case .fileReplaced: .serviceUnavailable
                default: .internalServerError
                }
            self.init(status, error.message)
        }

        /// The response: `{"type":"about:blank","title":…,"status":…,"detail":…}`.
        public func response(from request: Request, context: some RequestContext) throws -> Response {
            body()
        }

        /// The problem's response, for code that has no request at hand.
        func body() -> Response {
            var fields = headers
            fields[.contentType] = "application/problem+json"
            return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: encoded())))
        }

        /// The problem's JSON object, encoded.
        func encoded() -> [UInt8] {
            let object: [String: JSONValue] = [
                "type": .string("about:blank"), "title": .string(status.reasonPhrase),
                "status": .integer(Int64(status.code)), "detail": .string(detail),
            ]
            return JSONValue.object(object).encoded()
        }
    }

    /// Turns every error thrown below it into `application/problem+json`: a `Problem` as it is,
    /// a `StoreError` by its code, Hummingbird's own errors (an unknown route, a body over the
    /// limit) with their status, anything else as a 500 whose detail names it.
    public struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
        /// The middleware.
        public init() {}

        /// Answers `next`'s errors as problems.
        public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
            async throws -> Response
        {
            do {
                return try await next(request, context)
            } catch  where Task.isCancelled {
                // The request's client went, which cancelled its work (`KeptHTTP1Channel`):
                // nothing is sent; the log and the metrics say 499, not a server failure.
                return Response(status: Self.clientClosedRequest)
            } catch let problem as Problem {
                return problem.body()
            } catch let error as StoreError {
                return Problem(error, write: request.method != .get && request.method != .head).body()
            } catch let error as any HTTPResponseError {
                // The router has no "method not allowed": a route's path with another method
                // is a 404 to it. A 405 with Allow tells the client the path is right.
                if error.status == .notFound, let allowed = ShelfAPI.methods(allowedOn: request.uri.path) {
                    let list = allowed.map(\.rawValue).joined(separator: ", ")
                    return Problem(
                        .methodNotAllowed, "\(request.method) is not allowed on \(request.uri.path); it takes \(list)",
                        headers: [.allow: list]
                    ).body()
                }
                return Problem(error.status, Self.detail(for: error.status, request: request)).body()
            } catch let error as HTTPParserError {
                // The request could not be read whole: a body cut short before the client closed
                // its side (llhttp's "stream ended at an unexpected time") was answered 500 as a
                // server failure (hostile round 12). A handler reads its body whole before it
                // writes anything, so nothing was stored.
                return Problem(
                    .badRequest,
                    "the request could not be read (\(error)): its body ended before the length it announced, or "
                        + "it is not HTTP/1.1; nothing was stored. Send the whole request again"
                ).body()
            } catch {
                context.logger.error("request failed", metadata: ["error": "\(error)"])
                return Problem(.internalServerError, "the server failed: \(error)").body()
            }
        }

        /// The status logged for a request whose client went before its answer (nginx's 499).
        static var clientClosedRequest: HTTPResponse.Status { .init(code: 499, reasonPhrase: "Client Closed Request") }

        static func detail(for status: HTTPResponse.Status, request: Request) -> String {
            switch status {
            case .notFound: "no route \(request.method) \(request.uri.path); see README for the routes"
            case .contentTooLarge:
                "the request body is larger than the server takes (\(ShelfAPI.maximumBodyBytes) bytes); send less"
            case .methodNotAllowed: "\(request.method) is not allowed on \(request.uri.path)"
            default: status.reasonPhrase
            }
        }
    }
#endif
