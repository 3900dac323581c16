"""The lexicon tagger: whole-word matching, calibration for the 0.5 gate, negation, Russian."""

from __future__ import annotations

import numpy as np
import pytest

from core.emotion import EMOTIONS, default_tagger, query_emotion
from core.emotion.plutchik import EMOTION_INDEX
from core.emotion.text_tokens import ru_stem, tokens

GATE = 0.5


def score(text: str, emotion: str) -> float:
    return float(query_emotion(text)[EMOTION_INDEX[emotion]])


@pytest.mark.parametrize(
    "text",
    [
        "the radio is on the table",
        "my therapist moved the appointment",
        "rad",
        "What is the capital of France?",
        "When did Caroline go to the support group meeting?",
        "Remind me what my sister said about the trip",
        "Я просто купил хлеб",  # "просто" must not hit "прости" (guilt)
        "Мы поднялись на гору",  # "гору" must not hit "горе" (grief)
        "Он надел куртку",  # "надел" must not hit "надеюсь" (hope)
        "",
    ],
)
def test_neutral_text_opens_no_gate(text):
    vec = query_emotion(text)
    assert vec.shape == (len(EMOTIONS),)
    assert vec.max() < GATE, dict(zip(EMOTIONS, vec, strict=True))


@pytest.mark.parametrize("text", ["the radio is on the table", "my therapist said hello", "rad"])
def test_substrings_never_match(text):
    assert not query_emotion(text).any()


@pytest.mark.parametrize(
    "text, emotion",
    [
        ("I feel so ashamed of myself", "shame"),
        ("I'm terrified", "fear"),
        ("It was my fault and I feel guilty", "guilt"),
        ("I am furious with him", "anger"),
        ("I'm so happy today!", "joy"),
        ("I miss my father", "sadness"),
        ("That smell is disgusting", "disgust"),
        ("Wow, I was completely stunned", "surprise"),
        ("I can't wait for the trip", "anticipation"),
        ("I trust her completely", "trust"),
        ("мне так стыдно", "shame"),
        ("Я скучаю по отцу", "sadness"),
        ("Я ужасно боюсь темноты", "fear"),
        ("Меня это бесит", "anger"),
        ("Я так рада тебя видеть", "joy"),
        ("Я виновата перед ней", "guilt"),
    ],
)
def test_clear_emotion_reaches_the_gate_on_the_right_emotion(text, emotion):
    vec = query_emotion(text)
    assert vec[EMOTION_INDEX[emotion]] >= GATE
    assert EMOTIONS[int(np.argmax(vec))] == emotion


@pytest.mark.parametrize(
    "negated, plain, emotion",
    [
        ("I am not happy", "I am happy", "joy"),
        ("I'm not afraid anymore", "I'm afraid", "fear"),
        ("I don't feel guilty", "I feel guilty", "guilt"),
        ("Я не злюсь", "Я злюсь", "anger"),
    ],
)
def test_negation_cancels(negated, plain, emotion):
    assert score(plain, emotion) >= GATE
    assert score(negated, emotion) == 0.0


def test_negation_stops_at_a_clause_break():
    assert score("No, I am happy", "joy") >= GATE


def test_intensifier_and_softener():
    assert (
        score("I am so sad", "sadness")
        > score("I am sad", "sadness")
        > score("I am a bit sad", "sadness")
    )


def test_russian_inflections_share_a_stem():
    assert ru_stem("разочарована") == ru_stem("разочарован")
    for form in ("тревога", "тревогу", "тревогой"):
        assert score(f"у меня {form}", "fear") >= GATE, form


def test_tokens_are_whole_words():
    assert tokens("Don't go—the radio's on!") == ["don't", "go", "the", "radio's", "on"]


def test_tag_many_shape_and_range():
    tagger = default_tagger()
    out = tagger.tag_many(["I'm terrified", "the radio is on", "мне стыдно и страшно"])
    assert out.shape == (3, len(EMOTIONS))
    assert (out >= 0).all() and (out <= 1).all()
    assert tagger.tag_many([]).shape == (0, len(EMOTIONS))
    assert tagger.name and tagger.version


def test_embedding_head_maps_vectors_to_emotion_probabilities(tmp_path):
    from core.emotion.embedding_head import EmbeddingHeadTagger

    class TwoDimEmbedder:
        name, dim = "toy-2d", 2

        def embed_passages(self, texts, progress=None):
            return np.array([[1.0, 0.0] if "!" in t else [0.0, 1.0] for t in texts], np.float32)

    weight = np.zeros((2, len(EMOTIONS) + 1), np.float32)
    weight[0, EMOTION_INDEX["joy"]] = 8.0  # dimension 0 → joy
    weight[1, len(EMOTIONS)] = 8.0  # dimension 1 → none
    path = tmp_path / "head.npz"
    np.savez(
        path,
        weight=weight,
        bias=np.zeros(len(EMOTIONS) + 1, np.float32),
        classes=np.array([*EMOTIONS, "none"]),
        model=np.array("toy-2d"),
    )
    head = EmbeddingHeadTagger(path, embedder=TwoDimEmbedder())
    out = head.tag_many(["yay!", "the table"])
    assert out.shape == (2, len(EMOTIONS)) and (out >= 0).all() and (out <= 1).all()
    assert EMOTIONS[int(out[0].argmax())] == "joy" and out[0].max() > 0.9
    assert out[1].max() < 0.01  # mass went to "none"
