import Foundation
import SNSTestSupport

extension MultipartForm {
    /// A G0 post form (API conventions §4, §8): text parts, then one `file` part per image, as Alamofire/Moya build it.
    static func g0Post(_ fields: KeyValuePairs<String, String>, images: [[UInt8]] = []) -> MultipartForm {
        var form = MultipartForm()
        for (name, value) in fields { form.field(name, value) }
        for (index, image) in images.enumerated() {
            form.file("file", filename: "image\(index).jpg", mimeType: "image/jpg", bytes: image)
        }
        return form
    }
}
