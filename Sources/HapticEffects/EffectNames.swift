// SPDX-License-Identifier: Apache-2.0

/// TI's names for ROM effects 1-123, in order (the same in every ROM library).
let romEffectNames: [String] = [
    "Strong Click - 100%",  // 1
    "Strong Click - 60%",  // 2
    "Strong Click - 30%",  // 3
    "Sharp Click - 100%",  // 4
    "Sharp Click - 60%",  // 5
    "Sharp Click - 30%",  // 6
    "Soft Bump - 100%",  // 7
    "Soft Bump - 60%",  // 8
    "Soft Bump - 30%",  // 9
    "Double Click - 100%",  // 10
    "Double Click - 60%",  // 11
    "Triple Click - 100%",  // 12
    "Soft Fuzz - 60%",  // 13
    "Strong Buzz - 100%",  // 14
    "750 ms Alert 100%",  // 15
    "1000 ms Alert 100%",  // 16
    "Strong Click 1 - 100%",  // 17
    "Strong Click 2 - 80%",  // 18
    "Strong Click 3 - 60%",  // 19
    "Strong Click 4 - 30%",  // 20
    "Medium Click 1 - 100%",  // 21
    "Medium Click 2 - 80%",  // 22
    "Medium Click 3 - 60%",  // 23
    "Sharp Tick 1 - 100%",  // 24
    "Sharp Tick 2 - 80%",  // 25
    "Sharp Tick 3 - 60%",  // 26
    "Short Double Click Strong 1 - 100%",  // 27
    "Short Double Click Strong 2 - 80%",  // 28
    "Short Double Click Strong 3 - 60%",  // 29
    "Short Double Click Strong 4 - 30%",  // 30
    "Short Double Click Medium 1 - 100%",  // 31
    "Short Double Click Medium 2 - 80%",  // 32
    "Short Double Click Medium 3 - 60%",  // 33
    "Short Double Sharp Tick 1 - 100%",  // 34
    "Short Double Sharp Tick 2 - 80%",  // 35
    "Short Double Sharp Tick 3 - 60%",  // 36
    "Long Double Sharp Click Strong 1 - 100%",  // 37
    "Long Double Sharp Click Strong 2 - 80%",  // 38
    "Long Double Sharp Click Strong 3 - 60%",  // 39
    "Long Double Sharp Click Strong 4 - 30%",  // 40
    "Long Double Sharp Click Medium 1 - 100%",  // 41
    "Long Double Sharp Click Medium 2 - 80%",  // 42
    "Long Double Sharp Click Medium 3 - 60%",  // 43
    "Long Double Sharp Tick 1 - 100%",  // 44
    "Long Double Sharp Tick 2 - 80%",  // 45
    "Long Double Sharp Tick 3 - 60%",  // 46
    "Buzz 1 - 100%",  // 47
    "Buzz 2 - 80%",  // 48
    "Buzz 3 - 60%",  // 49
    "Buzz 4 - 40%",  // 50
    "Buzz 5 - 20%",  // 51
    "Pulsing Strong 1 - 100%",  // 52
    "Pulsing Strong 2 - 60%",  // 53
    "Pulsing Medium 1 - 100%",  // 54
    "Pulsing Medium 2 - 60%",  // 55
    "Pulsing Sharp 1 - 100%",  // 56
    "Pulsing Sharp 2 - 60%",  // 57
    "Transition Click 1 - 100%",  // 58
    "Transition Click 2 - 80%",  // 59
    "Transition Click 3 - 60%",  // 60
    "Transition Click 4 - 40%",  // 61
    "Transition Click 5 - 20%",  // 62
    "Transition Click 6 - 10%",  // 63
    "Transition Hum 1 - 100%",  // 64
    "Transition Hum 2 - 80%",  // 65
    "Transition Hum 3 - 60%",  // 66
    "Transition Hum 4 - 40%",  // 67
    "Transition Hum 5 - 20%",  // 68
    "Transition Hum 6 - 10%",  // 69
    "Transition Ramp Down Long Smooth 1 - 100 to 0%",  // 70
    "Transition Ramp Down Long Smooth 2 - 100 to 0%",  // 71
    "Transition Ramp Down Medium Smooth 1 - 100 to 0%",  // 72
    "Transition Ramp Down Medium Smooth 2 - 100 to 0%",  // 73
    "Transition Ramp Down Short Smooth 1 - 100 to 0%",  // 74
    "Transition Ramp Down Short Smooth 2 - 100 to 0%",  // 75
    "Transition Ramp Down Long Sharp 1 - 100 to 0%",  // 76
    "Transition Ramp Down Long Sharp 2 - 100 to 0%",  // 77
    "Transition Ramp Down Medium Sharp 1 - 100 to 0%",  // 78
    "Transition Ramp Down Medium Sharp 2 - 100 to 0%",  // 79
    "Transition Ramp Down Short Sharp 1 - 100 to 0%",  // 80
    "Transition Ramp Down Short Sharp 2 - 100 to 0%",  // 81
    "Transition Ramp Up Long Smooth 1 - 0 to 100%",  // 82
    "Transition Ramp Up Long Smooth 2 - 0 to 100%",  // 83
    "Transition Ramp Up Medium Smooth 1 - 0 to 100%",  // 84
    "Transition Ramp Up Medium Smooth 2 - 0 to 100%",  // 85
    "Transition Ramp Up Short Smooth 1 - 0 to 100%",  // 86
    "Transition Ramp Up Short Smooth 2 - 0 to 100%",  // 87
    "Transition Ramp Up Long Sharp 1 - 0 to 100%",  // 88
    "Transition Ramp Up Long Sharp 2 - 0 to 100%",  // 89
    "Transition Ramp Up Medium Sharp 1 - 0 to 100%",  // 90
    "Transition Ramp Up Medium Sharp 2 - 0 to 100%",  // 91
    "Transition Ramp Up Short Sharp 1 - 0 to 100%",  // 92
    "Transition Ramp Up Short Sharp 2 - 0 to 100%",  // 93
    "Transition Ramp Down Long Smooth 1 - 50 to 0%",  // 94
    "Transition Ramp Down Long Smooth 2 - 50 to 0%",  // 95
    "Transition Ramp Down Medium Smooth 1 - 50 to 0%",  // 96
    "Transition Ramp Down Medium Smooth 2 - 50 to 0%",  // 97
    "Transition Ramp Down Short Smooth 1 - 50 to 0%",  // 98
    "Transition Ramp Down Short Smooth 2 - 50 to 0%",  // 99
    "Transition Ramp Down Long Sharp 1 - 50 to 0%",  // 100
    "Transition Ramp Down Long Sharp 2 - 50 to 0%",  // 101
    "Transition Ramp Down Medium Sharp 1 - 50 to 0%",  // 102
    "Transition Ramp Down Medium Sharp 2 - 50 to 0%",  // 103
    "Transition Ramp Down Short Sharp 1 - 50 to 0%",  // 104
    "Transition Ramp Down Short Sharp 2 - 50 to 0%",  // 105
    "Transition Ramp Up Long Smooth 1 - 0 to 50%",  // 106
    "Transition Ramp Up Long Smooth 2 - 0 to 50%",  // 107
    "Transition Ramp Up Medium Smooth 1 - 0 to 50%",  // 108
    "Transition Ramp Up Medium Smooth 2 - 0 to 50%",  // 109
    "Transition Ramp Up Short Smooth 1 - 0 to 50%",  // 110
    "Transition Ramp Up Short Smooth 2 - 0 to 50%",  // 111
    "Transition Ramp Up Long Sharp 1 - 0 to 50%",  // 112
    "Transition Ramp Up Long Sharp 2 - 0 to 50%",  // 113
    "Transition Ramp Up Medium Sharp 1 - 0 to 50%",  // 114
    "Transition Ramp Up Medium Sharp 2 - 0 to 50%",  // 115
    "Transition Ramp Up Short Sharp 1 - 0 to 50%",  // 116
    "Transition Ramp Up Short Sharp 2 - 0 to 50%",  // 117
    "Long buzz for programmatic stopping - 100%",  // 118
    "Smooth Hum 1 (No kick or brake pulse) - 50%",  // 119
    "Smooth Hum 2 (No kick or brake pulse) - 40%",  // 120
    "Smooth Hum 3 (No kick or brake pulse) - 30%",  // 121
    "Smooth Hum 4 (No kick or brake pulse) - 20%",  // 122
    "Smooth Hum 5 (No kick or brake pulse) - 10%"  // 123
]
