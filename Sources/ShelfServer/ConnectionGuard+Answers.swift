#if Server
    internal import HTTPTypes
    internal import Logging
    internal import NIOHTTP1

    /// The access log and request metrics for the answers `ConnectionGuard` gives by itself
    /// (a 400 for an unreadable head, a 408 for a head that never ended, a 413 or 417 for an
    /// `Expect` refused): one log line and one count each, as `AccessLogMiddleware` gives a
    /// route's, under the route `(connection)`; the method and path are `-` when no head was read.
    struct GuardAccessLog: Sendable {
        let logger: Logger
        let metrics: ServerMetrics

        /// The route these answers are counted and logged under.
        static let route = "(connection)"

        func record(_ request: HTTPRequest?, status: Int) {
            let method = request?.method.rawValue ?? "-"
            let path = request?.path ?? "-"
            metrics.countRequest(route: Self.route, method: method, status: status)
            logger.info("\(method) \(path) \(status)", metadata: ["route": .string(Self.route)])
        }
    }

    /// The answers `ConnectionGuard` gives by itself, before a request reaches a handler.
    extension ConnectionGuard {
        /// The 400 for a request head NIO's parser could not read.
        static func unreadableHead(_ error: HTTPParserError) -> Problem {
            switch error {
            case .invalidEOFState:
                Problem(
                    .badRequest,
                    "the request's head was cut short: the client closed its side of the connection before the "
                        + "blank line that ends the header fields; nothing was stored: send the whole request again")
            case .headerOverflow:
                Problem(
                    .badRequest,
                    "the request's head is longer than the server takes (\(ShelfServer.maximumHeaderBytes) bytes, "
                        + "\(ShelfServer.maximumHeaderFields) fields); nothing was stored: send it again with fewer "
                        + "or shorter header fields")
            default:
                Problem(
                    .badRequest,
                    "the request's head could not be read as HTTP/1.1 (\(error)); nothing was stored: send the whole "
                        + "request again, well formed")
            }
        }

        /// What a request's `Expect` asks (RFC 9110 §10.1.1): nothing to do (none, or no body to
        /// continue with), a `100 Continue` before its body, or a refusal answered at once without
        /// reading the body (a 413 for a `Content-Length` over the limit, a 417 for any other
        /// expectation than `100-continue`).
        enum Expectation {
            case none
            case proceed
            case refuse(Problem)
        }

        static func expectation(of request: HTTPRequest) -> Expectation {
            let values = request.headerFields[values: .expect]
            guard !values.isEmpty else { return .none }
            let members = values.flatMap { $0.split(separator: ",") }.map { member in
                String(member.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
                    .lowercased()
            }
            // Said more than once (two fields, or twice in one) is still only 100-continue.
            guard Set(members) == ["100-continue"] else {
                let given = JSONReader.printable(values.joined(separator: ", "))
                return .refuse(
                    Problem(
                        .expectationFailed,
                        "the request expects '\(given)', which this server cannot meet (it meets only "
                            + "Expect: 100-continue); nothing was read or stored: send the request again without it"))
            }
            let declared = request.headerFields[.contentLength].flatMap { Int($0) }
            if let declared, declared > ShelfAPI.maximumBodyBytes {
                return .refuse(
                    Problem(
                        .contentTooLarge,
                        "the request body is larger than the server takes (\(ShelfAPI.maximumBodyBytes) bytes): "
                            + "Content-Length is \(declared); nothing of it was read: send less"))
            }
            let chunked = request.headerFields[.transferEncoding]?.lowercased().contains("chunked") == true
            return chunked || (declared ?? 0) > 0 ? .proceed : .none
        }
    }
#endif
