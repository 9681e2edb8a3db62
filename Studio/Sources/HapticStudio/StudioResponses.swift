// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// JSON in and out of the studio's API.
enum StudioResponses {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    /// A JSON body with `status`.
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    struct ErrorBody: Encodable {
        var error: String
        var path: String?
    }

    /// `{"error": …, "path": …}` with `status`.
    static func error(_ status: HTTPResponse.Status, _ message: String, path: String? = nil) -> Response {
        json(ErrorBody(error: message, path: path), status: status)
    }

    /// The status and body for a studio error.
    static func error(_ error: StudioError) -> Response {
        let status: HTTPResponse.Status =
            switch error {
            case .malformed, .badRequest: .badRequest
            case .invalid: .unprocessableContent
            case .tooLarge: .contentTooLarge
            case .forbidden: .forbidden
            case .chip: .serviceUnavailable
            }
        return Self.error(status, error.description, path: error.path)
    }
}
