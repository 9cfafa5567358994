"""Every text the simulated APIs return, and the data that differs between en and zh.

Values are the ones the official classes hold at 56dd66c (``model_inference/multi_*/scenarios{en,zh}``);
templates use ``str.format`` fields, which format values exactly like the official f-strings.
Where the two languages differ in more than wording (punctuation, a missing full stop), the
difference is the official one.
"""

from __future__ import annotations

from typing import Any

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        # BaseApi
        "wifi_on": "Wi-Fi has been turned on",
        "device_login": "Device has been logged in",
        # MessageApi
        "send_not_logged_in": "Device not logged in, unable to send message",
        "send_wifi_off": "Wi-Fi is turned off, cannot send messages at this time",
        "send_inbox_full": "Inbox capacity is full. You need to ask the user which message to delete.",
        "send_unknown_user": "Sender or receiver does not exist",
        "send_ok": "Message successfully sent to {receiver_name}.",
        "delete_not_logged_in": "Device not logged in, unable to delete message",
        "delete_unknown": "Message ID does not exist",
        "delete_ok": "Message ID {message_id} has been successfully deleted.",
        "view_not_logged_in": "Device not logged in, unable to view message information",
        "view_unknown_sender": "Sender does not exist",
        "view_unknown_receiver": "Receiver does not exist",
        "view_none": "No related message records found",
        "search_unknown_user": "User does not exist",
        "search_none": "No messages found containing the keyword",
        "times_not_logged_in": (
            "Device not logged in, unable to retrieve all message times and their corresponding message IDs."
        ),
        "latest_not_logged_in": "Device not logged in, unable to retrieve the latest sent message ID.",
        "earliest_not_logged_in": "Device not logged in, unable to retrieve the earliest sent message ID.",
        "inbox_empty": "No message records found",
        "latest_ok": "The latest message ID is {message_id}",
        "earliest_ok": "The earliest message ID is {message_id}",
        # ReminderApi
        "reminder_view_not_logged_in": "The device is not logged in, so you cannot view notifications",
        "reminder_view_none": "No reminder found with the title '{title}'.",
        "reminder_add_not_logged_in": "Device not logged in. Unable to add a new reminder.",
        "reminder_add_full": "Reminder capacity is full. Unable to add a new reminder.",
        "reminder_add_ok": "Reminder '{title}' was successfully added.",
        "reminder_delete_not_logged_in": "Device not logged in. Unable to delete the specified reminder.",
        "reminder_unknown": "Reminder ID does not exist.",
        "reminder_delete_ok": "Reminder ID {reminder_id} was successfully deleted.",
        "reminder_all_none": "No reminders found.",
        # FoodPlatform
        "food_login_wifi_off": "Wi-Fi is not enabled, unable to login",
        "food_unknown_user": "User does not exist",
        "food_bad_password": "Incorrect password",
        "food_already_logged_in": "{username} is already logged in",
        "food_login_ok": "User {username} has successfully logged in!",
        "food_no_sessions": "No users are currently logged in to the food platform",
        "food_order_not_logged_in": "User {username} is not logged in to the food platform",
        "food_unknown_merchant": "Merchant does not exist",
        "food_bad_quantity": "Invalid quantity {quantity} for product {product}",
        "food_unknown_product": "Product {product} does not exist in {merchant}'s menu",
        "food_insufficient": "Insufficient balance to place the order",
        "food_order_ok": "Food delivery order successfully placed with {merchant}. Total amount: {total} yuan",
        "food_products_unknown": "Merchant '{merchant_name}' does not exist",
        "food_no_orders": "User has no order records",
        "food_no_match": "No matching orders found",
        # Travel
        "travel_no_direct": "There are no direct flights that meet the criteria.",
        "travel_bad_credentials": "Incorrect username or password.",
        "travel_need_id": "Please provide a valid reservation ID or user ID",
        "travel_no_transfer": "No connecting flights that meet the criteria were found.",
        "travel_auth_failed": "Authentication failed. Please check your user ID and password.",
        "travel_bad_payment": "Invalid payment method",
        "travel_cash_short": "Your cash balance is insufficient. Please consider using another payment method.",
        "travel_bank_short": "Your bank balance is insufficient. Please consider using another payment method.",
        "travel_booked": (
            "Booking successful. Reservation ID: {reservation_id}. Total cost: {total} yuan (including baggage fees)."
        ),
        "travel_reservation_mismatch": "Reservation not found or user ID does not match.",
        "travel_flight_unknown": "Flight information not found.",
        "travel_user_unknown": "User information not found.",
        "travel_flight_changed": "Flight number has been changed.",
        "travel_flight_change_failed": "Flight change failed: Invalid new flight number or destination does not match.",
        "travel_cabin_paid": "Cabin change successful. Price difference paid: {amount}.",
        "travel_cabin_short": "Insufficient balance to pay the cabin price difference.",
        "travel_cabin_refunded": "Cabin change successful. Price difference refunded: {amount}.",
        "travel_baggage_paid": "Baggage has been added. Additional fee to be paid: {amount}.",
        "travel_baggage_short": "Insufficient balance to pay the additional baggage fees.",
        "travel_no_fees": "Modification completed with no additional fees.",
        "travel_invalid_user": "Invalid user ID.",
        "travel_invalid_reservation": "Invalid reservation ID or it does not belong to the user.",
        "travel_invalid_flight": "Invalid flight information.",
        "travel_used": "The flight segment has been used and cannot be canceled.",
        "travel_airline_cancel": (
            "The flight has been canceled. Your reservation will be canceled free of charge, "
            "and {refund} yuan has been refunded."
        ),
        "travel_free_cancel": (
            "More than 24 hours before departure. Free cancellation successful, {refund} yuan has been refunded."
        ),
        "travel_fee_cancel": (
            "Less than 24 hours before departure. A cancellation fee of {fee} yuan has been deducted, "
            "and {refund} yuan has been refunded."
        ),
        "travel_refund_notice": (
            "Refund has been successfully processed. {name}'s cash balance has been increased by {amount} yuan."
        ),
    },
    "zh": {
        "wifi_on": "wifi已经打开",
        "device_login": "设备已经登录",
        "send_not_logged_in": "device未登录，无法发送短信",
        "send_wifi_off": "wifi关闭，此时不能发送信息",
        "send_inbox_full": "内存容量不够了，你需要询问user删除哪一条短信。",
        "send_unknown_user": "发送者或接收者不存在",
        "send_ok": "短信成功发送给{receiver_name}。",
        "delete_not_logged_in": "device未登录，无法删除短信",
        "delete_unknown": "短信ID不存在",
        "delete_ok": "短信ID {message_id} 已成功删除。",
        "view_not_logged_in": "device未登录，无法查看短信信息",
        "view_unknown_sender": "发送者不存在",
        "view_unknown_receiver": "接收者不存在",
        "view_none": "没有找到相关的短信记录",
        "search_unknown_user": "用户不存在",
        "search_none": "没有找到包含关键词的短信",
        "times_not_logged_in": "device未登录，获取所有短信的时间以及对应的短信编号。",
        "latest_not_logged_in": "device未登录，无法获取最新发送的短信ID。",
        "earliest_not_logged_in": "device未登录，无法获取最早发送的短信ID",  # no 。, as officially
        "inbox_empty": "短信记录为空",
        "latest_ok": "最新的短信ID是 {message_id}",
        "earliest_ok": "最早的短信ID是 {message_id}",
        "reminder_view_not_logged_in": "device未登录，无法查看提醒",
        "reminder_view_none": "没有找到标题为 '{title}' 的提醒",
        "reminder_add_not_logged_in": "device未登录，无法添加一个新的提醒",
        "reminder_add_full": "提醒容量已满，无法添加新的提醒",
        "reminder_add_ok": "提醒 '{title}' 已成功添加",
        "reminder_delete_not_logged_in": "device未登录，无法删除指定的提醒",
        "reminder_unknown": "提醒ID不存在",
        "reminder_delete_ok": "提醒ID {reminder_id} 已成功删除",
        "reminder_all_none": "没有任何提醒",
        "reminder_notified": "提醒ID {reminder_id} 已标记为已通知",
        "reminder_search_none": "没有找到包含该关键词的提醒",
        "food_login_wifi_off": "wifi未打开，无法登录",
        "food_unknown_user": "用户不存在",
        "food_bad_password": "密码错误",
        "food_already_logged_in": "{username} 已经登录",
        "food_login_ok": "用户{username}登陆成功！",
        "food_no_sessions": "当前没有登录food platform",
        "food_order_not_logged_in": "用户 {username} 未登录food platform",
        "food_unknown_merchant": "商家不存在",
        "food_bad_quantity": "无效的数量 {quantity} 对于商品 {product}",
        "food_unknown_product": "商品 {product} 不存在于 {merchant} 的菜单中",
        "food_insufficient": "余额不足，无法下单",
        "food_order_ok": "外卖订单成功下单给 {merchant}，总金额为 {total} 元",
        "food_products_unknown": "商家 '{merchant_name}' 不存在",
        "food_no_orders": "用户没有订单记录",
        "food_no_match": "没有找到匹配的订单",
        "travel_no_direct": "没有符合条件的直达航班",
        "travel_bad_credentials": "用户名或密码不正确",
        "travel_need_id": "请提供有效的预订ID或用户ID",
        "travel_no_transfer": "未找到符合条件的中转航班。",
        "travel_auth_failed": "认证失败，请检查用户ID和密码。",
        "travel_bad_payment": "支付方式无效",
        "travel_cash_short": "cash余额不足，请考虑换一种支付方式",
        "travel_bank_short": "bank余额不足，请考虑换一种支付方式",
        "travel_booked": "预订成功，预订号：{reservation_id}，总费用：{total}元（包含行李费用）。",
        "travel_reservation_mismatch": "预订未找到或用户ID不匹配。",
        "travel_flight_unknown": "航班信息未找到。",
        "travel_user_unknown": "用户信息未找到。",
        "travel_flight_changed": "航班号已更改。",
        "travel_flight_change_failed": "航班更改失败：新的航班号无效或目的地不匹配。",
        "travel_cabin_paid": "舱位更改成功。已支付差价: {amount}。",
        "travel_cabin_short": "余额不足，无法支付舱位差价。",
        "travel_cabin_refunded": "舱位更改成功。已退款差价: {amount}。",
        "travel_baggage_paid": "行李已增加。需支付额外费用: {amount}。",
        "travel_baggage_short": "余额不足，无法支付额外行李费用。",
        "travel_no_fees": "修改完成，无需额外费用。",
        "travel_invalid_user": "用户ID无效。",
        "travel_invalid_reservation": "预订ID无效或与该用户无关。",
        "travel_invalid_flight": "航班信息无效。",
        "travel_used": "航段已使用，无法取消。",
        "travel_airline_cancel": "航班已取消，您的预订将被免费取消，已退款{refund}元。",
        "travel_free_cancel": "距离出发时间超过24小时，免费取消成功，已退款{refund}元。",
        "travel_fee_cancel": "距离出发时间不足24小时，已扣除取消费{fee}元，退款{refund}元。",
        "travel_refund_notice": "已成功处理退款，{name}的现金余额增加了{amount}元。",
    },
}

#: Inbox texts 2 and 3 and the to-do reminder are translated in zh; the rest is English in both.
INBOX_2 = {
    "en": 'Can you help me order a "Margherita Pizza" delivery? The merchant is Domino\'s.',
    "zh": '你能帮我点一个"玛格丽特披萨"的外卖吗,商家是达美乐。',
}
INBOX_3 = {
    "en": (
        "Please check the milk tea delivery options available from Heytea and purchase a cheaper milk tea "
        'for me. After making the purchase, remember to reply to me with "Already bought."'
    ),
    "zh": "帮我查一些喜茶有哪些奶茶外卖，买一杯便宜些的奶茶。买完以后记得回复我,回复的内容是（已经买好了）",
}
TODO_REMINDER = {
    "en": (
        'First, help Frank place a food delivery order at "Hema Fresh," ordering two "Fresh Gift Packs." '
        'Then, send a message to Frank saying, "The price of the purchased goods is () yuan." Replace the '
        "parentheses with the actual amount, keeping one decimal place."
    ),
    "zh": (
        '首先帮Frank在"盒马生鲜"点外卖，需要定两个"生鲜大礼包"，再发短信告诉Frank：'
        '"购买商品的价格是()元"。要把括号换成实际金额，保留一位小数。'
    ),
}

#: (merchant, id, service type, ((product, price), (product, price))) per language, in official order.
MERCHANTS: dict[str, tuple[tuple[str, str, str, tuple[tuple[str, float], ...]], ...]] = {
    "en": (
        ("Domino's", "M100", "Pizza", (("Margherita Pizza", 68.0), ("Super Supreme Pizza", 88.0))),
        ("Rice Village Bibimbap", "M101", "Bibimbap", (("Stone Pot Bibimbap", 35.0), ("Korean Beef Bibimbap", 45.0))),
        ("Haidilao", "M102", "Hotpot", (("Beef Rolls", 68.0), ("Seafood Platter", 88.0))),
        ("Heytea", "M103", "Milk Tea", (("Cheese Milk Tea", 25.0), ("Four Seasons Spring Milk Tea", 22.0))),
        ("Hema Fresh", "M104", "Fresh Grocery", (("Organic Vegetable Pack", 15.0), ("Fresh Gift Pack", 99.0))),
        ("Jiutian BBQ", "M105", "BBQ", (("Korean Grilled Beef", 128.0), ("Grilled Pork Belly", 78.0))),
    ),
    "zh": (
        ("达美乐", "M100", "Pizza", (("玛格丽特披萨", 68.0), ("超级至尊披萨", 88.0))),
        ("米村拌饭", "M101", "Bibimbap", (("石锅拌饭", 35.0), ("韩式牛肉拌饭", 45.0))),
        ("海底捞", "M102", "Hotpot", (("牛肉卷", 68.0), ("海鲜拼盘", 88.0))),
        ("喜茶", "M103", "Milk Tea", (("芝士奶茶", 25.0), ("四季春奶茶", 22.0))),
        ("盒马生鲜", "M104", "Fresh Grocery", (("有机蔬菜包", 15.0), ("生鲜大礼包", 99.0))),
        ("九田家烤肉", "M105", "BBQ", (("韩式烤牛肉", 128.0), ("烤五花肉", 78.0))),
    ),
}

#: Travel cities (the English name is the key) and cabin names.
CITIES: dict[str, dict[str, str]] = {
    "en": {},
    "zh": {
        "Beijing": "北京",
        "Shanghai": "上海",
        "Nanjing": "南京",
        "Shenzhen": "深圳",
        "Xiamen": "厦门",
        "Chengdu": "成都",
        "Fuzhou": "福州",
    },
}
ECONOMY = {"en": "Economy Class", "zh": "经济舱"}
BUSINESS = {"en": "Business Class", "zh": "商务舱"}
#: The one reason that counts as an airline cancellation (exact match).
AIRLINE_CANCELLED = {"en": "The airline has canceled the flight.", "zh": "航空公司取消航班"}


def city(lang: str, name: str) -> str:
    return CITIES[lang].get(name, name)


def text(lang: str, key: str, **fields: Any) -> str:
    return TEXTS[lang][key].format(**fields) if fields else TEXTS[lang][key]
