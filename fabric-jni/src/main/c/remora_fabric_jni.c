/*
 * remora_fabric_jni.c: JNI glue for dev.remora.fabric.FabricNative over the rf_* core.
 *
 * Natives are registered from one JNINativeMethod table in JNI_OnLoad (the only exported symbol; everything else
 * is hidden). Every failure throws java.io.IOException carrying the rf_* error text ("fi_call: fi_strerror text")
 * and returns at once. RF_CLOSED surfaces as java.nio.channels.AsynchronousCloseException.
 */
#include <jni.h>
#include <stdlib.h>
#include <string.h>

#include "remora_fabric.h"

#define RF_JNI_ABI_VERSION 6
#define RF_JNI_CLASS "dev/remora/fabric/FabricNative"

static jclass rf_jni_io_exception;
static jclass rf_jni_closed_exception;

static jmethodID rf_jni_closed_init;

static void rf_jni_throw(JNIEnv *env, int rc, const char *err) {
    if (rc == RF_CLOSED) {
        /* AsynchronousCloseException has only a no-argument constructor */
        jobject ex = (*env)->NewObject(env, rf_jni_closed_exception, rf_jni_closed_init);
        if (ex != NULL) {
            (*env)->Throw(env, (jthrowable) ex);
        }
    } else {
        (*env)->ThrowNew(env, rf_jni_io_exception, err);
    }
}

static rf_ep *rf_jni_ep(jlong handle) {
    return (rf_ep *) (intptr_t) handle;
}

static jint rf_jni_abi_version(JNIEnv *env, jclass cls) {
    (void) env;
    (void) cls;
    return RF_JNI_ABI_VERSION;
}

/* Opens libfabric; returns null, or why it cannot be used. */
static jstring rf_jni_init(JNIEnv *env, jclass cls) {
    char err[RF_ERR_LEN];
    (void) cls;
    if (rf_init(err) == RF_OK) {
        return NULL;
    }
    return (*env)->NewStringUTF(env, err);
}

static jstring rf_jni_libfabric_version(JNIEnv *env, jclass cls) {
    (void) cls;
    return (*env)->NewStringUTF(env, rf_libfabric_version());
}

static jstring rf_jni_providers(JNIEnv *env, jclass cls) {
    char buf[4096], err[RF_ERR_LEN];
    (void) cls;
    if (rf_providers(buf, sizeof(buf), err) != RF_OK) {
        rf_jni_throw(env, RF_ERROR, err);
        return NULL;
    }
    return (*env)->NewStringUTF(env, buf);
}

static jlong rf_jni_open(JNIEnv *env, jclass cls, jstring provider) {
    char err[RF_ERR_LEN];
    rf_ep *ep = NULL;
    (void) cls;
    const char *prov = (*env)->GetStringUTFChars(env, provider, NULL);
    if (prov == NULL) {
        return 0; /* OutOfMemoryError pending */
    }
    int rc = rf_open(prov, &ep, err);
    (*env)->ReleaseStringUTFChars(env, provider, prov);
    if (rc != RF_OK) {
        rf_jni_throw(env, rc, err);
        return 0;
    }
    return (jlong) (intptr_t) ep;
}

static void rf_jni_set_wait(JNIEnv *env, jclass cls, jlong handle, jlong spin_ns, jlong spin_max_ns, jboolean yield,
                            jlong max_sleep_ns, jint busy_polls, jlong deep_sleep_ns) {
    (void) env;
    (void) cls;
    rf_wait_policy p = {.spin_ns = spin_ns, .spin_max_ns = spin_max_ns, .max_sleep_ns = max_sleep_ns,
                        .yield = yield ? 1 : 0, .busy_polls = busy_polls, .deep_sleep_ns = deep_sleep_ns};
    rf_set_wait(rf_jni_ep(handle), &p);
}

static void rf_jni_set_send_ring(JNIEnv *env, jclass cls, jlong handle, jlong bytes) {
    (void) env;
    (void) cls;
    rf_set_send_ring(rf_jni_ep(handle), (size_t) bytes);
}

static jbyteArray rf_jni_address(JNIEnv *env, jclass cls, jlong handle) {
    const void *addr;
    size_t len;
    (void) cls;
    rf_address(rf_jni_ep(handle), &addr, &len);
    jbyteArray out = (*env)->NewByteArray(env, (jsize) len);
    if (out == NULL) {
        return NULL;
    }
    (*env)->SetByteArrayRegion(env, out, 0, (jsize) len, (const jbyte *) addr);
    return out;
}

static jstring rf_jni_provider_name(JNIEnv *env, jclass cls, jlong handle) {
    (void) cls;
    return (*env)->NewStringUTF(env, rf_provider_name(rf_jni_ep(handle)));
}

static jint rf_jni_inject_size(JNIEnv *env, jclass cls, jlong handle) {
    (void) env;
    (void) cls;
    return (jint) rf_inject_size(rf_jni_ep(handle));
}

static jlong rf_jni_insert(JNIEnv *env, jclass cls, jlong handle, jbyteArray addr) {
    char err[RF_ERR_LEN];
    jbyte buf[256];
    int64_t peer = -1;
    (void) cls;
    jsize len = (*env)->GetArrayLength(env, addr);
    if (len <= 0 || len > (jsize) sizeof(buf)) {
        (*env)->ThrowNew(env, rf_jni_io_exception, "fi_av_insert: a fabric address has 1 to 256 bytes");
        return -1;
    }
    (*env)->GetByteArrayRegion(env, addr, 0, len, buf);
    int rc = rf_insert(rf_jni_ep(handle), buf, (size_t) len, &peer, err);
    if (rc != RF_OK) {
        rf_jni_throw(env, rc, err);
        return -1;
    }
    return (jlong) peer;
}

static void rf_jni_remove(JNIEnv *env, jclass cls, jlong handle, jlong peer) {
    char err[RF_ERR_LEN];
    (void) cls;
    int rc = rf_remove(rf_jni_ep(handle), peer, err);
    if (rc != RF_OK) {
        rf_jni_throw(env, rc, err);
    }
}

static void rf_jni_send(JNIEnv *env, jclass cls, jlong handle, jlong peer, jobject buffer, jint offset, jint length,
                     jlong timeout_ns) {
    char err[RF_ERR_LEN];
    (void) cls;
    char *base = (*env)->GetDirectBufferAddress(env, buffer);
    if (base == NULL) {
        (*env)->ThrowNew(env, rf_jni_io_exception, "fi_tsend: the buffer is not a direct ByteBuffer");
        return;
    }
    int rc = rf_send(rf_jni_ep(handle), peer, base + offset, (size_t) length, timeout_ns, err);
    if (rc != RF_OK) {
        rf_jni_throw(env, rc, err);
    }
}

/*
 * Copies len bytes of primitive array a from byte off to dst, holding the array (critical) only for the copy. Not
 * Get<Type>ArrayRegion: the JVM copies with memmove, whose `rep movsb` is 16x slower at some offsets (see rf_copy).
 * Returns 0 with an exception pending when the array cannot be reached.
 */
static int rf_jni_copy_piece(JNIEnv *env, jobject a, jint off, char *dst, jint len) {
    char *p = a == NULL ? NULL : (*env)->GetPrimitiveArrayCritical(env, a, NULL);
    if (p == NULL) {
        return 0;
    }
    rf_copy(dst, p + off, (size_t) len);
    (*env)->ReleasePrimitiveArrayCritical(env, a, p, JNI_ABORT);
    return 1;
}

/* header (direct buffer, may be null) + byte[] body, copied into the staging buffer and sent as one message */
static void rf_jni_send_array(JNIEnv *env, jclass cls, jlong handle, jlong peer, jobject header, jint hoff, jint hlen,
                           jbyteArray body, jint boff, jint blen, jlong timeout_ns) {
    char err[RF_ERR_LEN];
    (void) cls;
    rf_ep *ep = rf_jni_ep(handle);
    char *h = NULL;
    if (hlen > 0) {
        h = (*env)->GetDirectBufferAddress(env, header);
        if (h == NULL) {
            (*env)->ThrowNew(env, rf_jni_io_exception, "fi_tsend: the header is not a direct ByteBuffer");
            return;
        }
    }
    size_t total = (size_t) hlen + (size_t) blen;
    char *staging = rf_staging(ep, total, timeout_ns, err);
    if (staging == NULL) {
        rf_jni_throw(env, rf_closing(ep) ? RF_CLOSED : RF_ERROR, err);
        return;
    }
    if (hlen > 0) {
        rf_copy(staging, h + hoff, (size_t) hlen);
    }
    if (blen > 0 && !rf_jni_copy_piece(env, body, boff, staging + hlen, blen)) {
        return; /* OutOfMemoryError pending */
    }
    int rc = rf_send(ep, peer, staging, total, timeout_ns, err);
    if (rc != RF_OK) {
        rf_jni_throw(env, rc, err);
    }
}

/*
 * Pieces of primitive arrays (byte offsets and lengths, checked by FabricEndpoint.sendGather), copied in order into
 * the staging buffer and sent as one message. Each array is held (critical) only for its copy: never across the
 * send, which may wait on the peer.
 */
static void rf_jni_send_gather(JNIEnv *env, jclass cls, jlong handle, jlong peer, jobjectArray arrays,
                               jintArray offsets, jintArray lengths, jint count, jlong timeout_ns) {
    char err[RF_ERR_LEN];
    (void) cls;
    rf_ep *ep = rf_jni_ep(handle);
    jint *off = (*env)->GetIntArrayElements(env, offsets, NULL);
    jint *len = off == NULL ? NULL : (*env)->GetIntArrayElements(env, lengths, NULL);
    if (len == NULL) {
        if (off != NULL) {
            (*env)->ReleaseIntArrayElements(env, offsets, off, JNI_ABORT);
        }
        return; /* OutOfMemoryError pending */
    }
    size_t total = 0;
    for (jint i = 0; i < count; i++) {
        total += (size_t) len[i];
    }
    char *staging = rf_staging(ep, total, timeout_ns, err);
    int ok = staging != NULL;
    size_t at = 0;
    for (jint i = 0; ok && i < count; i++) {
        jobject a = (*env)->GetObjectArrayElement(env, arrays, i);
        ok = rf_jni_copy_piece(env, a, off[i], staging + at, len[i]);
        at += (size_t) len[i];
        (*env)->DeleteLocalRef(env, a);
    }
    (*env)->ReleaseIntArrayElements(env, lengths, len, JNI_ABORT);
    (*env)->ReleaseIntArrayElements(env, offsets, off, JNI_ABORT);
    if (staging == NULL) {
        rf_jni_throw(env, rf_closing(ep) ? RF_CLOSED : RF_ERROR, err);
        return;
    }
    if (!ok) {
        if (!(*env)->ExceptionCheck(env)) {
            (*env)->ThrowNew(env, rf_jni_io_exception, "fi_tsend: cannot reach a piece's array");
        }
        return;
    }
    int rc = rf_send(ep, peer, staging, total, timeout_ns, err);
    if (rc != RF_OK) {
        rf_jni_throw(env, rc, err);
    }
}

/* Returns the message length, -1 on timeout; the rest of rf_msg goes into the result buffer (its 8 longs; lost_cpu
 * and yields also on timeout). */
static jlong rf_jni_recv(JNIEnv *env, jclass cls, jlong handle, jlong timeout_ns, jobject result) {
    char err[RF_ERR_LEN];
    (void) cls;
    rf_msg *msg = (*env)->GetDirectBufferAddress(env, result);
    if (msg == NULL || (*env)->GetDirectBufferCapacity(env, result) < (jlong) sizeof(rf_msg)) {
        (*env)->ThrowNew(env, rf_jni_io_exception, "fi_trecv: the result is no direct ByteBuffer of 64 bytes");
        return -1;
    }
    int rc = rf_recv(rf_jni_ep(handle), timeout_ns, msg, err);
    if (rc == RF_TIMEOUT) {
        return -1;
    }
    if (rc != RF_OK) {
        rf_jni_throw(env, rc, err);
        return -1;
    }
    return msg->length;
}

static jobject rf_jni_buffer(JNIEnv *env, jclass cls, jlong handle, jint slot) {
    size_t cap;
    (void) cls;
    void *base = rf_buffer(rf_jni_ep(handle), slot, &cap);
    if (base == NULL) {
        return NULL;
    }
    return (*env)->NewDirectByteBuffer(env, base, (jlong) cap);
}

static jint rf_jni_eager_size(JNIEnv *env, jclass cls) {
    (void) env;
    (void) cls;
    return RF_EAGER;
}

static jboolean rf_jni_waits_on_fd(JNIEnv *env, jclass cls, jlong handle) {
    (void) env;
    (void) cls;
    return rf_waits_on_fd(rf_jni_ep(handle)) ? JNI_TRUE : JNI_FALSE;
}

static void rf_jni_sleep_deeply(JNIEnv *env, jclass cls, jlong handle) {
    (void) env;
    (void) cls;
    rf_sleep_deeply(rf_jni_ep(handle));
}

static void rf_jni_bell(JNIEnv *env, jclass cls, jlong handle) {
    (void) env;
    (void) cls;
    rf_bell(rf_jni_ep(handle));
}

static void rf_jni_wakeup(JNIEnv *env, jclass cls, jlong handle) {
    (void) env;
    (void) cls;
    rf_wakeup(rf_jni_ep(handle));
}

static void rf_jni_close(JNIEnv *env, jclass cls, jlong handle) {
    (void) env;
    (void) cls;
    rf_close(rf_jni_ep(handle));
}

/* This endpoint's shared ring (made on first call; see rf_shared_create): its name, or an IOException. */
static jstring rf_jni_shared_create(JNIEnv *env, jclass cls, jlong handle, jlong bytes) {
    char err[RF_ERR_LEN], name[64];
    (void) cls;
    if (rf_shared_create(rf_jni_ep(handle), bytes < 0 ? 0 : (size_t) bytes, name, sizeof(name), err) != RF_OK) {
        rf_jni_throw(env, RF_ERROR, err);
        return NULL;
    }
    return (*env)->NewStringUTF(env, name);
}

static void rf_jni_shared_attach(JNIEnv *env, jclass cls, jlong handle, jstring name) {
    char err[RF_ERR_LEN];
    (void) cls;
    const char *n = (*env)->GetStringUTFChars(env, name, NULL);
    if (n == NULL) {
        return; /* OutOfMemoryError pending */
    }
    int rc = rf_shared_attach(rf_jni_ep(handle), n, err);
    (*env)->ReleaseStringUTFChars(env, name, n);
    if (rc != RF_OK) {
        rf_jni_throw(env, rc, err);
    }
}

static void rf_jni_shared_enable(JNIEnv *env, jclass cls, jlong handle, jboolean enable) {
    (void) env;
    (void) cls;
    rf_shared_enable(rf_jni_ep(handle), enable == JNI_TRUE);
}

static jint rf_jni_shared_on(JNIEnv *env, jclass cls, jlong handle) {
    (void) env;
    (void) cls;
    return rf_shared_on(rf_jni_ep(handle));
}

static jlong rf_jni_held_bytes(JNIEnv *env, jclass cls, jlong handle) {
    (void) env;
    (void) cls;
    return (jlong) rf_held_bytes(rf_jni_ep(handle));
}

static const JNINativeMethod rf_jni_methods[] = {
    {"heldBytes", "(J)J", (void *) rf_jni_held_bytes},
    {"sharedCreate", "(JJ)Ljava/lang/String;", (void *) rf_jni_shared_create},
    {"sharedAttach", "(JLjava/lang/String;)V", (void *) rf_jni_shared_attach},
    {"sharedEnable", "(JZ)V", (void *) rf_jni_shared_enable},
    {"sharedOn", "(J)I", (void *) rf_jni_shared_on},
    {"abiVersion", "()I", (void *) rf_jni_abi_version},
    {"init", "()Ljava/lang/String;", (void *) rf_jni_init},
    {"libfabricVersion", "()Ljava/lang/String;", (void *) rf_jni_libfabric_version},
    {"providers", "()Ljava/lang/String;", (void *) rf_jni_providers},
    {"open", "(Ljava/lang/String;)J", (void *) rf_jni_open},
    {"setWait", "(JJJZJIJ)V", (void *) rf_jni_set_wait},
    {"setSendRing", "(JJ)V", (void *) rf_jni_set_send_ring},
    {"waitsOnFd", "(J)Z", (void *) rf_jni_waits_on_fd},
    {"sleepDeeply", "(J)V", (void *) rf_jni_sleep_deeply},
    {"bell", "(J)V", (void *) rf_jni_bell},
    {"address", "(J)[B", (void *) rf_jni_address},
    {"providerName", "(J)Ljava/lang/String;", (void *) rf_jni_provider_name},
    {"injectSize", "(J)I", (void *) rf_jni_inject_size},
    {"eagerSize", "()I", (void *) rf_jni_eager_size},
    {"insert", "(J[B)J", (void *) rf_jni_insert},
    {"remove", "(JJ)V", (void *) rf_jni_remove},
    {"send", "(JJLjava/nio/ByteBuffer;IIJ)V", (void *) rf_jni_send},
    {"sendArray", "(JJLjava/nio/ByteBuffer;II[BIIJ)V", (void *) rf_jni_send_array},
    {"sendGather", "(JJ[Ljava/lang/Object;[I[IIJ)V", (void *) rf_jni_send_gather},
    {"receive", "(JJLjava/nio/ByteBuffer;)J", (void *) rf_jni_recv},
    {"buffer", "(JI)Ljava/nio/ByteBuffer;", (void *) rf_jni_buffer},
    {"wakeup", "(J)V", (void *) rf_jni_wakeup},
    {"close", "(J)V", (void *) rf_jni_close},
};

static jclass rf_jni_global_class(JNIEnv *env, const char *name) {
    jclass local = (*env)->FindClass(env, name);
    if (local == NULL) {
        return NULL;
    }
    jclass global = (*env)->NewGlobalRef(env, local);
    (*env)->DeleteLocalRef(env, local);
    return global;
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    JNIEnv *env;
    (void) reserved;
    if ((*vm)->GetEnv(vm, (void **) &env, JNI_VERSION_1_8) != JNI_OK) {
        return JNI_ERR;
    }
    rf_jni_io_exception = rf_jni_global_class(env, "java/io/IOException");
    rf_jni_closed_exception = rf_jni_global_class(env, "java/nio/channels/AsynchronousCloseException");
    if (rf_jni_io_exception == NULL || rf_jni_closed_exception == NULL) {
        return JNI_ERR;
    }
    rf_jni_closed_init = (*env)->GetMethodID(env, rf_jni_closed_exception, "<init>", "()V");
    jclass cls = (*env)->FindClass(env, RF_JNI_CLASS);
    if (rf_jni_closed_init == NULL || cls == NULL) {
        return JNI_ERR;
    }
    jint rc = (*env)->RegisterNatives(env, cls, rf_jni_methods, sizeof(rf_jni_methods) / sizeof(rf_jni_methods[0]));
    (*env)->DeleteLocalRef(env, cls);
    return rc == 0 ? JNI_VERSION_1_8 : JNI_ERR;
}

JNIEXPORT void JNICALL JNI_OnUnload(JavaVM *vm, void *reserved) {
    JNIEnv *env;
    (void) reserved;
    if ((*vm)->GetEnv(vm, (void **) &env, JNI_VERSION_1_8) != JNI_OK) {
        return;
    }
    (*env)->DeleteGlobalRef(env, rf_jni_io_exception);
    (*env)->DeleteGlobalRef(env, rf_jni_closed_exception);
}
