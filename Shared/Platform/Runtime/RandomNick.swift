/// Random, human-readable, whitespace-free nicknames: a Korean adjective, an animal and four digits
/// ("졸린수달4821"). 40 × 40 × 9000 = 14.4 million combinations, so collisions are rare and retried.
/// Used by social's `POST /v1/users/me/nick/random` and by auth for accounts made by federated sign-in.
package enum RandomNick {
    package static let attempts = 5

    static let adjectives = [
        "행복한", "졸린", "용감한", "수줍은", "씩씩한", "느긋한", "배고픈", "신나는", "조용한", "엉뚱한",
        "귀여운", "똑똑한", "부지런한", "상냥한", "재빠른", "명랑한", "다정한", "침착한", "호기심많은", "반짝이는",
        "포근한", "날쌘", "차분한", "유쾌한", "당당한", "깜찍한", "의젓한", "소심한", "발랄한", "든든한",
        "산뜻한", "말랑한", "꼼꼼한", "느릿한", "활기찬", "순수한", "우아한", "엉성한", "대담한", "한가한",
    ]

    static let animals = [
        "수달", "고양이", "강아지", "판다", "여우", "토끼", "다람쥐", "펭귄", "부엉이", "코알라",
        "거북이", "고래", "돌고래", "햄스터", "너구리", "사슴", "치타", "호랑이", "사자", "기린",
        "하마", "코끼리", "알파카", "라쿤", "미어캣", "오리", "참새", "까치", "두더지", "고슴도치",
        "물개", "해달", "늑대", "곰", "담비", "족제비", "청설모", "앵무새", "두루미", "올빼미",
    ]

    package static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return make(using: &generator)
    }

    package static func make(using generator: inout some RandomNumberGenerator) -> String {
        let adjective = adjectives.randomElement(using: &generator)!
        let animal = animals.randomElement(using: &generator)!
        return "\(adjective)\(animal)\(Int.random(in: 1000...9999, using: &generator))"
    }
}
