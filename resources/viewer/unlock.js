/* Pulse locked viewer: the page holds only ciphertext (#pulse-sealed, format pulse-sealed/1:
 * AES-256-GCM, key from PBKDF2-SHA256 over the passphrase). This asks for the passphrase,
 * decrypts with WebCrypto in the browser — no request leaves the page — and hands the graph
 * data to the viewer. A wrong passphrase fails the GCM tag and says so. */
(function () {
  "use strict";

  function bytes(b64) {
    var raw = atob(b64), out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  }

  function decrypt(sealed, passphrase) {
    var header = sealed.header;
    var subtle = window.crypto && window.crypto.subtle;
    if (!subtle) return Promise.reject(new Error("no WebCrypto"));
    var enc = new TextEncoder();
    return subtle.importKey("raw", enc.encode(passphrase), "PBKDF2", false, ["deriveKey"])
      .then(function (base) {
        return subtle.deriveKey(
          { name: "PBKDF2", hash: "SHA-256", salt: bytes(header.salt),
            iterations: header.iterations },
          base, { name: "AES-GCM", length: 256 }, false, ["decrypt"]);
      })
      .then(function (key) {
        return subtle.decrypt(
          { name: "AES-GCM", iv: bytes(header.nonce), additionalData: enc.encode(sealed.line),
            tagLength: 128 },
          key, bytes(sealed.ciphertext));
      })
      .then(function (plain) { return JSON.parse(new TextDecoder().decode(plain)); });
  }

  window.pulseUnlock = function (element, start) {
    var viewer = window.pulseViewer = window.pulseViewer || {};
    var box = document.getElementById("lock");
    var input = document.getElementById("lock-passphrase");
    var button = document.getElementById("lock-open");
    var message = document.getElementById("lock-message");
    var sealed;
    try {
      sealed = JSON.parse(element.textContent);
      sealed.header = JSON.parse(sealed.line);
    } catch (err) {
      viewer.error = "sealed: " + err;
      message.textContent = "This file is damaged: its locked data cannot be read.";
      return;
    }
    viewer.locked = true;
    viewer.unlockError = null;
    box.hidden = false;
    input.focus();

    function attempt() {
      var passphrase = input.value;
      if (!passphrase) { message.textContent = "Type the passphrase first."; return; }
      button.disabled = true;
      input.disabled = true;
      message.textContent = "Opening…";
      viewer.unlocking = true;
      decrypt(sealed, passphrase).then(function (data) {
        viewer.unlocking = false;
        viewer.locked = false;
        box.hidden = true;
        input.value = "";
        start(data);
      }, function (err) {
        viewer.unlocking = false;
        viewer.unlockError = String(err && err.name || err);
        message.textContent = err && err.message === "no WebCrypto"
          ? "This browser cannot decrypt here (no WebCrypto)."
          : "Wrong passphrase: this file did not open. Check it and try again.";
        button.disabled = false;
        input.disabled = false;
        input.select();
        input.focus();
      });
    }

    button.addEventListener("click", attempt);
    input.addEventListener("keydown", function (e) { if (e.key === "Enter") attempt(); });
    viewer.unlock = function (passphrase) { input.value = String(passphrase); attempt(); };
  };
})();
