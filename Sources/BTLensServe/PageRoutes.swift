import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// Checks every request (`ServeAccess`) and puts the security headers on every answer.
struct AccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: ServeAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let verdict = access.check(
            path: request.uri.path, query: request.uri.queryParameters["token"],
            cookie: request.cookies[access.cookieName]?.value,
            host: request.head.authority, origin: request.headers[.origin],
            fetchSite: request.headers[HTTPFields.Element.Name("Sec-Fetch-Site")!])
        var response: Response
        switch verdict {
        case .refused(let why):
            response = PageRoutes.text("btlens: \(why)\n", status: .forbidden)
        case .allowedSetCookie:
            // The token goes into a cookie, and out of the address bar (and the history).
            response = Response(status: .seeOther, headers: [.location: "/"])
            if let token = access.token {
                response.headers[.setCookie] = "\(access.cookieName)=\(token); HttpOnly; SameSite=Strict; Path=/"
            }
        case .allowed:
            // Hummingbird's own refusals (404, 405) get the headers too.
            do { response = try await next(request, context) } catch let error as HTTPError {
                response = PageRoutes.text("btlens: \(error.body ?? error.status.reasonPhrase)\n", status: error.status)
            }
        }
        for field in ServeAccess.headers { response.headers[field.name] = field.value }
        return response
    }
}

/// The page, its assets, the saved report and the WebSocket.
enum PageRoutes {
    static func add(to router: Router<BasicWebSocketRequestContext>, server: LiveServer) {
        router.get("/") { _, _ in asset(PackageResources.index_html, type: "text/html; charset=utf-8") }
        router.get("/app.js") { _, _ in asset(PackageResources.app_js, type: "text/javascript; charset=utf-8") }
        router.get("/app.css") { _, _ in asset(PackageResources.app_css, type: "text/css; charset=utf-8") }
        router.get("/report") { request, _ in
            await report(request, server)
        }
        router.ws("/events") { request, _ in
            // A browser always sends Origin with a WebSocket; the middleware has checked it is ours.
            request.headers[.origin] == nil ? .dontUpgrade : .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            // A page that reconnects brings its filter: its selection is replayed once.
            let filter = context.request.uri.queryParameters["filter"].map(String.init) ?? ""
            await LiveSession(hub: server.hub, details: server.details).run(filter: filter, inbound, outbound)
        }
    }

    static func asset(_ bytes: [UInt8], type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func text(_ s: String, status: HTTPResponse.Status) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: s)))
    }

    private static func report(_ request: Request, _ server: LiveServer) async -> Response {
        let format = String(request.uri.queryParameters["format"] ?? "html")
        guard format == "html" || format == "md" else {
            return text("btlens: format is html or md, not \(format)\n", status: .badRequest)
        }
        // Hummingbird has decoded the query's percent escapes.
        let filter = request.uri.queryParameters["filter"].map(String.init) ?? ""
        do {
            let made = await LiveSession.onThread { Result { try server.report(format, filter) } }
            let (bytes, name) = try made.get()
            let type = format == "html" ? "text/html; charset=utf-8" : "text/markdown; charset=utf-8"
            return Response(
                status: .ok,
                headers: [.contentType: type, .contentDisposition: "attachment; filename=\"\(name)\""],
                body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        } catch let error as LiveServer.ReportError {
            return text("btlens: \(error.message)\n", status: error.status == 400 ? .badRequest : .conflict)
        } catch {
            return text("btlens: \(error)\n", status: .conflict)
        }
    }
}
