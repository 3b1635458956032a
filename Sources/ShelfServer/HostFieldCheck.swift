#if Server
    internal import HTTPTypes
    internal import Hummingbird
    internal import NIOCore
    internal import NIOHTTP1

    /// Finds HTTP/1.1 requests without exactly one `Host` header field, which RFC 9112 §3.2
    /// says a server must answer 400. Only handlers next to NIOHTTP1's request decoder see a
    /// request's version (HTTP/1.0 may leave Host out) and every Host it carries (the
    /// conversion to HTTP types keeps the first as the authority and drops it from the fields),
    /// so this handler only marks such a request, with the `Shelf-Host-Fault` field, and
    /// `HostFieldGuard` answers it in the router: in order with the connection's other requests,
    /// as `application/problem+json`, counted and logged like any other answer. A
    /// `Shelf-Host-Fault` the client sent is removed from every request, so only this handler
    /// can set it.
    ///
    /// Sits between NIOHTTP1's request decoder and the rest (`ConnectionGuard` puts it there);
    /// runs on the channel's event loop only.
    final class HostFieldCheck: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias InboundOut = HTTPServerRequestPart

        /// The field marking a request whose Host is wrong: `missing`, or the number of Host
        /// fields it has.
        static let marker = "Shelf-Host-Fault"

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .head(var head) = unwrapInboundIn(data) else {
                context.fireChannelRead(data)
                return
            }
            head.headers.remove(name: Self.marker)
            let hosts = head.headers["host"].count
            let version = head.version
            if (version.major, version.minor) >= (1, 1), hosts != 1 {
                head.headers.add(name: Self.marker, value: hosts == 0 ? "missing" : String(hosts))
            }
            context.fireChannelRead(wrapInboundOut(.head(head)))
        }
    }

    /// Answers 400 to a request `HostFieldCheck` marked: an HTTP/1.1 request without a `Host`
    /// header, or with more than one. The detail says which and what to send.
    struct HostFieldGuard<Context: RequestContext>: RouterMiddleware {
        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
            async throws -> Response
        {
            guard let fault = request.headers[HTTPField.Name(HostFieldCheck.marker)!] else {
                return try await next(request, context)
            }
            let found = fault == "missing" ? "has no Host header" : "has \(fault) Host headers"
            throw Problem(
                .badRequest,
                "this HTTP/1.1 request \(found); HTTP/1.1 requires exactly one (RFC 9112 §3.2): send one Host "
                    + "header naming the server, such as `Host: \(Self.address(of: context))`")
        }

        /// The server's address as a `Host` value (`127.0.0.1:8080`, `[::1]:8080`).
        static func address(of context: Context) -> String {
            guard let local = ShelfAPI.connection(of: context)?.localAddress, let ip = local.ipAddress,
                let port = local.port
            else { return "127.0.0.1:8080" }
            return ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
        }
    }
#endif
